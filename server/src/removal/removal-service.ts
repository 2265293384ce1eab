/**
 * Entry removal, "anyone may remove their own entry": a request names an entry and one
 * of its emails; a single-use link goes to that address, so only its owner can confirm.
 * Confirming tombstones the entry in the engine for good (it stays removed when the same
 * record is ingested again).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import type { Engine } from '../../../engine/index';
import type { MailService } from '../mail/mail-service';
import type { RateLimiter } from '../infra/rate-limiter';
import { Errors } from '../infra/errors';
import { createOneTimeToken, consumeOneTimeToken } from '../auth/auth-repository';
import { hashToken, newOpaqueToken } from '../auth/secrets';
import { MailTemplates } from '../mail/templates';

const REQUESTS_PER_USER = { ratePerSecond: 1 / 60, burst: 10 };

export function createRemovalService(deps: { db: Kysely<Database>; engine: Engine; mail: MailService; config: Config; limiter: RateLimiter }) {
  const { db, engine, config } = deps;
  return {
    async request(userId: string, input: { id: string; email: string }): Promise<void> {
      const decision = await deps.limiter.take(`removal:${userId}`, REQUESTS_PER_USER);
      if (!decision.allowed) throw Errors.tooManyRequests(decision.retryAfterMs);
      const entry = await engine.get(input.id);
      if (!entry) throw Errors.notFound('Entry not found');
      const email = input.email.trim().toLowerCase();
      const owned = (entry.email ?? []).find((value) => value.trim().toLowerCase() === email);
      if (!owned || email === 'hidden') throw Errors.badRequest('That email is not part of this entry');
      const token = newOpaqueToken();
      await createOneTimeToken(db, {
        purpose: 'remove-entry',
        userId: null,
        tokenHash: hashToken(token),
        expiresAt: new Date(Date.now() + config.ENTRY_REMOVAL_TOKEN_TTL_HOURS * 3_600_000),
        payload: { id: input.id },
      });
      const url = `${config.publicUrl}/entry-removal?ref=${encodeURIComponent(input.id)}&v=${token}`;
      await deps.mail.send(MailTemplates.removeEntry(owned, config.BRAND, entry.database_name, url));
    },

    async confirm(input: { id: string; v: string }): Promise<void> {
      await db.transaction().execute(async (trx) => {
        const token = await consumeOneTimeToken(trx, 'remove-entry', hashToken(input.v));
        // Throwing rolls back: a link presented with another entry id stays usable.
        if (!token || (token.payload as { id?: string } | null)?.id !== input.id) throw Errors.badRequest('Invalid or expired removal link');
      });
      await engine.remove(input.id);
    },
  };
}

export type RemovalService = ReturnType<typeof createRemovalService>;
