/**
 * Opt-out for anyone, without an account: a person asks for their email address
 * (`POST /privacy/opt-out`), gets a single-use link by mail (`/opt-out?t=…`), sees how many
 * records hold that address, per data well and without any value, and opts out
 * (`POST /privacy/opt-out/confirm`): the engine suppresses the address (engine/crates/format/src/suppress.rs),
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
import type { MailService } from '../mail/mail-service';
import type { RateLimiter } from '../infra/rate-limiter';
import { requestOptOut } from './opt-out-request';
import { previewOptOut } from './opt-out-holdings';
import { confirmOptOut, undoOptOut } from './opt-out-suppression';

export { OPT_OUT_INVALID_EMAIL } from './opt-out-request';
export { OPT_OUT_INVALID_LINK } from './opt-out-link';
export { OPT_OUT_MAX_RECORDS, type OptOutHoldings } from './opt-out-holdings';
export { OPT_OUT_NOT_OPTED_OUT } from './opt-out-suppression';

export function createOptOutService(deps: { db: Kysely<Database>; engine: Engine; mail: MailService; config: Config; limiter: RateLimiter }) {
  return {
    request: (rawEmail: string, address: string, onMailError: (error: unknown) => void) => requestOptOut(deps, rawEmail, address, onMailError),
    preview: (token: string, address: string) => previewOptOut(deps, token, address),
    confirm: (token: string) => confirmOptOut(deps, token),
    undo: (token: string) => undoOptOut(deps, token),
  };
}

export type OptOutService = ReturnType<typeof createOptOutService>;
