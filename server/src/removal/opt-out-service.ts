/**
 * Opt-out for anyone, without an account: a person asks for their email address
 * (`POST /privacy/opt-out`), gets a single-use link by mail (`/opt-out?t=…`), sees how many
 * records hold that address, per data well and without any value, and opts out
 * (`POST /privacy/opt-out/confirm`): the engine suppresses the address (engine/src/suppress.rs),
 * so no search, count, password check, monitoring match or export shows a record holding it,
 * in the data wells there are and in every one ingested later, until its owner lifts it
 * through the same mailed-link flow (`POST /privacy/opt-out/undo`). Only a keyed hash of the
 * address is kept for that.
 *
 * Decisions (server/src/removal/README.md):
 * - The request answers the same for every address, and a mail goes out whether or not the
 *   address is in any record (a difference would tell who is in the data); the mail is
 *   written after the answer. Throttled per client address (429) and per target address
 *   (silently: 3 mails a day).
 * - The email is kept only in its link's row: emptied when the link is used, deleted once
 *   expired (at the next request).
 * - "Records holding the address" = records whose `email` field equals it (case-insensitive),
 *   as an exact email search finds them. The preview counts them all and lists the data wells
 *   of the first OPT_OUT_MAX_RECORDS; the opt-out covers every one.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import type { Engine } from '../../../engine/index';
import { type MailService, MailTemplates } from '../mail/mail-service';
import type { RateLimiter } from '../infra/rate-limiter';
import { Errors } from '../infra/errors';
import { hashToken, newOpaqueToken } from '../infra/secrets';
import { isValidEmail } from '../common/credentials';
import { consumeOptOutToken, deleteExpiredOptOutTokens, insertOptOutToken, peekOptOutToken } from './opt-out-repository';

export const OPT_OUT_MAX_RECORDS = 10_000;
export const OPT_OUT_INVALID_EMAIL = 'Enter a valid email address.';
export const OPT_OUT_INVALID_LINK = 'This link is invalid, used or expired. Ask for a new one.';
export const OPT_OUT_NOT_OPTED_OUT = 'This address is not opted out.';

const REQUESTS_PER_ADDRESS = { ratePerSecond: 1 / 60, burst: 10 };
const MAILS_PER_TARGET = { ratePerSecond: 3 / 86_400, burst: 3 };
/** Looking at a link (the page's preview) is free of mail but still searches: bounded per address. */
const PREVIEWS_PER_ADDRESS = { ratePerSecond: 1 / 10, burst: 20 };

export interface OptOutHoldings {
  email: string;
  /** Records holding the address (every one, even past OPT_OUT_MAX_RECORDS). */
  total: number;
  /** Per data well, of the first OPT_OUT_MAX_RECORDS records, most first. */
  wells: { name: string; records: number }[];
  /** More records than `wells` counts. */
  truncated: boolean;
  /** The address is opted out (its records are hidden, so `total` is 0); since when (ISO 8601). */
  opted_out: boolean;
  opted_out_since: string | null;
}

export function createOptOutService(deps: { db: Kysely<Database>; engine: Engine; mail: MailService; config: Config; limiter: RateLimiter }) {
  const { db, engine, config } = deps;

  /** The records holding the address, the first `size` of them listed. */
  function holders(email: string, size: number) {
    // The address passed isValidEmail: no quote or backslash can end the quoted term.
    return engine.search({ query: `email:"${email}"`, mode: 'exact', page: 1, size, dedup: false });
  }

  /** How many records holding the address show. */
  const showing = async (email: string) => (await holders(email, 1)).total;

  async function holdings(email: string): Promise<OptOutHoldings> {
    const [result, suppression] = await Promise.all([
      holders(email, OPT_OUT_MAX_RECORDS),
      engine.suppression(email),
    ]);
    const perWell = new Map<string, number>();
    for (const entry of result.entries) perWell.set(entry.database_name, (perWell.get(entry.database_name) ?? 0) + 1);
    const wells = [...perWell].map(([name, records]) => ({ name, records })).sort((a, b) => b.records - a.records || a.name.localeCompare(b.name));
    return {
      email,
      total: result.total,
      wells,
      truncated: result.total > result.entries.length,
      opted_out: suppression.suppressed,
      opted_out_since: suppression.since === null ? null : new Date(suppression.since * 1000).toISOString(),
    };
  }

  async function linkEmail(token: string): Promise<string> {
    const email = await consumeOptOutToken(db, hashToken(token));
    if (!email) throw Errors.badRequest(OPT_OUT_INVALID_LINK);
    return email;
  }

  async function mailLink(email: string): Promise<void> {
    // Keyed by the address's hash: target emails are kept nowhere but in the link's row.
    if (!(await deps.limiter.take(`opt-out:to:${hashToken(email)}`, MAILS_PER_TARGET)).allowed) return;
    const token = newOpaqueToken();
    await insertOptOutToken(db, { tokenHash: hashToken(token), email, expiresAt: new Date(Date.now() + config.ENTRY_REMOVAL_TOKEN_TTL_HOURS * 3_600_000) });
    await deps.mail.send(MailTemplates.optOut(email, config.BRAND, `${config.publicUrl}/opt-out?t=${token}`, config.ENTRY_REMOVAL_TOKEN_TTL_HOURS));
  }

  return {
    /** Same answer for every valid address; only the client address's throttle refuses (429). */
    async request(rawEmail: string, address: string, onMailError: (error: unknown) => void): Promise<void> {
      const email = rawEmail.trim().toLowerCase();
      if (!isValidEmail(email)) throw Errors.badRequest(OPT_OUT_INVALID_EMAIL);
      const decision = await deps.limiter.take(`opt-out:ip:${address}`, REQUESTS_PER_ADDRESS);
      if (!decision.allowed) throw Errors.tooManyRequests(decision.retryAfterMs);
      void deleteExpiredOptOutTokens(db)
        .then(() => mailLink(email))
        .catch(onMailError);
    },

    /** What the link covers, and whether the address is opted out, without using the link up. */
    async preview(token: string, address: string): Promise<OptOutHoldings> {
      const decision = await deps.limiter.take(`opt-out:preview:${address}`, PREVIEWS_PER_ADDRESS);
      if (!decision.allowed) throw Errors.tooManyRequests(decision.retryAfterMs);
      const email = await peekOptOutToken(db, hashToken(token));
      if (!email) throw Errors.badRequest(OPT_OUT_INVALID_LINK);
      return holdings(email);
    },

    /**
     * Uses the link up and opts the address out: every record holding it is hidden now and
     * in every data well ingested later. Answers how many records were hidden and how many
     * still show (0: the suppression covers them all).
     */
    async confirm(token: string): Promise<{ removed: number; remaining: number }> {
      const email = await linkEmail(token);
      const before = await showing(email);
      await engine.suppress(email);
      const after = await showing(email);
      return { removed: before - after, remaining: after };
    },

    /** Uses the link up and lifts the address's opt-out: its records show again (unless removed one by one). */
    async undo(token: string): Promise<{ restored: number }> {
      const email = await linkEmail(token);
      const before = await showing(email);
      if (!(await engine.unsuppress(email))) throw Errors.badRequest(OPT_OUT_NOT_OPTED_OUT);
      return { restored: (await showing(email)) - before };
    },
  };
}

export type OptOutService = ReturnType<typeof createOptOutService>;
