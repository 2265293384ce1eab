/**
 * The opt-out's mailed link (opt-out-service.ts): single-use, keyed by its hash; the address
 * is kept only in the link's row.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import { type MailService, MailTemplates } from '../mail/mail-service';
import type { RateLimiter } from '../infra/rate-limiter';
import { Errors } from '../infra/errors';
import { hashToken, newOpaqueToken } from '../infra/secrets';
import { consumeOptOutToken, insertOptOutToken, peekOptOutToken } from './opt-out-repository';

export const OPT_OUT_INVALID_LINK = 'This link is invalid, used or expired. Ask for a new one.';

const MAILS_PER_TARGET = { ratePerSecond: 3 / 86_400, burst: 3 };

/** Mails a new link to the address, unless it had its mails of the day (silently). */
export async function mailLink(deps: { db: Kysely<Database>; mail: MailService; config: Config; limiter: RateLimiter }, email: string): Promise<void> {
  const { db, config } = deps;
  // Keyed by the address's hash: target emails are kept nowhere but in the link's row.
  if (!(await deps.limiter.take(`opt-out:to:${hashToken(email)}`, MAILS_PER_TARGET)).allowed) return;
  const token = newOpaqueToken();
  await insertOptOutToken(db, { tokenHash: hashToken(token), email, expiresAt: new Date(Date.now() + config.ENTRY_REMOVAL_TOKEN_TTL_HOURS * 3_600_000) });
  await deps.mail.send(MailTemplates.optOut(email, config.BRAND, `${config.publicUrl}/opt-out?t=${token}`, config.ENTRY_REMOVAL_TOKEN_TTL_HOURS));
}

/** The link's address, using the link up. */
export async function useLink(db: Kysely<Database>, token: string): Promise<string> {
  const email = await consumeOptOutToken(db, hashToken(token));
  if (!email) throw Errors.badRequest(OPT_OUT_INVALID_LINK);
  return email;
}

/** The link's address, the link left usable. */
export async function peekLink(db: Kysely<Database>, token: string): Promise<string> {
  const email = await peekOptOutToken(db, hashToken(token));
  if (!email) throw Errors.badRequest(OPT_OUT_INVALID_LINK);
  return email;
}
