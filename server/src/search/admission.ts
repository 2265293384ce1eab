/**
 * Search admission: whether an account may run one search now, what it sees, and what the
 * search costs it. `admit` decides and holds the search's count (and credit); the ticket it
 * returns is settled once with the search's outcome, which decides what is kept:
 *
 * | outcome | counted | charged |
 * |---|---|---|
 * | answered | yes | yes (with a charge reason; elevated accounts never) |
 * | the query refused (syntax, paging, access) | no | no |
 * | the query refused for its cost (too large a regex) | yes | no |
 * | failed after it started (time budget) | yes | the credit goes back |
 *
 * (On the exact path the count is written before the search, so it stays whatever happens.)
 *
 * Two paths. An account well within its limits whose snapshot is fresh is admitted in
 * memory, without a promise (the hot path of every search): the count and the charge are
 * held by the meter and kept or dropped at `settle` (search-meter.ts). Near a limit, locked
 * or unknown in process, the exact path checks the query first (so that a bad query is
 * refused as such and costs nothing), then counts and charges in one database statement,
 * and a failure gives the credit back with its ledger row. On this path the engine reads the
 * query twice (the check, then the search); on the in-memory path once.
 */
import { decide, type AdmitOptions, type SearchRequest } from './admission-rules';
import { heldTicket, type AdmissionTicket } from './admission-tickets';
import { admitExact, type AdmissionDeps } from './exact-admission';

export type { SearchAccess, AdmitOptions, SearchRequest } from './admission-rules';
export { asRequestError, type AdmissionTicket } from './admission-tickets';

export function createAdmission(deps: AdmissionDeps) {
  const { meter } = deps;

  /**
   * Admits one search of the account, or refuses it (a bad query as such, then access,
   * limits and credits). A ticket at once, without a promise, when the account's answer is
   * known in process (a fresh snapshot, well within its limits); else a promise of one.
   */
  function admit(userId: string, request: SearchRequest, options: AdmitOptions = {}): AdmissionTicket | Promise<AdmissionTicket> {
    const account = meter.freshAccount(userId);
    if (account) {
      const decided = decide(account.snapshot, options);
      if (!('refusal' in decided)) {
        const chargeReason = decided.charged ? options.charge : undefined;
        if (meter.tryCount(account, chargeReason)) return heldTicket(meter, userId, { ...decided.access, credits: meter.balance(account) }, chargeReason);
      }
    }
    return admitExact(deps, userId, request, options);
  }

  return { admit };
}

export type Admission = ReturnType<typeof createAdmission>;
