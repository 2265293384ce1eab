/** Asking for an opt-out link (opt-out-service.ts): the same answer for every valid address. */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import type { MailService } from '../mail/mail-service';
import type { RateLimiter } from '../infra/rate-limiter';
import { Errors } from '../infra/errors';
import { isValidEmail } from '../common/credentials';
import { deleteExpiredOptOutTokens } from './opt-out-repository';
import { mailLink } from './opt-out-link';

export const OPT_OUT_INVALID_EMAIL = 'Enter a valid email address.';

const REQUESTS_PER_ADDRESS = { ratePerSecond: 1 / 60, burst: 10 };

/** Only the client address's throttle refuses (429); the mail is written after the answer. */
export async function requestOptOut(
  deps: { db: Kysely<Database>; mail: MailService; config: Config; limiter: RateLimiter },
  rawEmail: string,
  address: string,
  onMailError: (error: unknown) => void,
): Promise<void> {
  const email = rawEmail.trim().toLowerCase();
  if (!isValidEmail(email)) throw Errors.badRequest(OPT_OUT_INVALID_EMAIL);
  const decision = await deps.limiter.take(`opt-out:ip:${address}`, REQUESTS_PER_ADDRESS);
  if (!decision.allowed) throw Errors.tooManyRequests(decision.retryAfterMs);
  void deleteExpiredOptOutTokens(deps.db)
    .then(() => mailLink(deps, email))
    .catch(onMailError);
}
