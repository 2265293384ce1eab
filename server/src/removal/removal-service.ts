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
import { type MailService, MailTemplates } from '../mail/mail-service';
import type { RateLimiter } from '../infra/rate-limiter';
import { Errors } from '../infra/errors';
import { createOneTimeToken, consumeOneTimeToken } from '../auth/tokens-service';
import { hashToken, newOpaqueToken } from '../infra/secrets';

// Every request counts against its user and its client address (429 when spent); a request
// that would mail also counts against the target address, and past that bucket the mail is
// dropped silently (a 429 there would tell that the email is in the entry).
const REQUESTS_PER_USER_AND_ADDRESS = { ratePerSecond: 1 / 60, burst: 10 };
const MAILS_PER_TARGET = { ratePerSecond: 3 / 86_400, burst: 3 };

export function createRemovalService(deps: { db: Kysely<Database>; engine: Engine; mail: MailService; config: Config; limiter: RateLimiter }) {
  const { db, engine, config } = deps;

  async function mailLink(id: string, databaseName: string, to: string, email: string): Promise<void> {
    // Keyed by the address's hash: target emails are kept nowhere, Redis included.
    if (!(await deps.limiter.take(`removal:to:${hashToken(email)}`, MAILS_PER_TARGET)).allowed) return;
    const token = newOpaqueToken();
    await createOneTimeToken(db, {
      purpose: 'remove-entry',
      userId: null,
      tokenHash: hashToken(token),
      expiresAt: new Date(Date.now() + config.ENTRY_REMOVAL_TOKEN_TTL_HOURS * 3_600_000),
      payload: { id },
    });
    const url = `${config.publicUrl}/entry-removal?ref=${encodeURIComponent(id)}&v=${token}`;
    await deps.mail.send(MailTemplates.removeEntry(to, config.BRAND, databaseName, url));
  }

  return {
    /**
     * Answers the same (nothing thrown) whether the entry exists, whether the email is one of
     * its emails and whether a mail goes out: ids are sequential, so any difference would let
     * a caller enumerate entries and test emails against them. Only the throttles, which count
     * every request alike, refuse. `address` is the client's rate-limit address. The mail is
     * written after the answer (failures go to `onMailError`), so a match answers no later
     * than a refusal.
     */
    async request(userId: string, input: { id: string; email: string }, address: string, onMailError: (error: unknown) => void): Promise<void> {
      const decision = await deps.limiter.takeEach([`removal:user:${userId}`, `removal:ip:${address}`], REQUESTS_PER_USER_AND_ADDRESS);
      if (!decision.allowed) throw Errors.tooManyRequests(decision.retryAfterMs);
      const entry = await engine.get(input.id);
      const email = input.email.trim().toLowerCase();
      const owned = entry && email !== 'hidden' ? (entry.email ?? []).find((value) => value.trim().toLowerCase() === email) : undefined;
      if (entry && owned) void mailLink(input.id, entry.database_name, owned, email).catch(onMailError);
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
