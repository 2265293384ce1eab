/** What an account's snapshot allows a search (admission.ts), before anything is counted. */
import { Errors, type AppError } from '../infra/errors';
import type { FieldName, SearchMode } from '../../../engine/index';
import type { MeteredAccount } from './metered-account';

export interface SearchAccess {
  subscribed: boolean;
  lawEnforcement: boolean;
  elevated: boolean;
  credits: number;
}

export interface AdmitOptions {
  /** The ledger reason of the credit the search takes; without it, no credit moves. */
  charge?: string;
  /** Refused (401) without a subscription: the public API. */
  requireSubscription?: boolean;
}

export type SearchRequest = { query: string; type: FieldName | 'all'; mode: SearchMode; page: number; size: number; dedup: boolean; maxWindow?: number };

/**
 * What the admission checks for work whose query is not the caller's (records by id, the
 * Breach API's keyed calls, a domain's overview): one plain term on the exact path, valid
 * for everyone, so only the account's own limits decide.
 */
export const OWN_QUERY_ADMISSION: SearchRequest = { query: 'records', type: 'all', mode: 'exact', page: 1, size: 1, dedup: false };

export function isLocked(account: { search_locked_until: Date | null }): boolean {
  return account.search_locked_until !== null && account.search_locked_until.getTime() > Date.now();
}

type Decision = { refusal: AppError } | { access: Omit<SearchAccess, 'credits'>; charged: boolean };

/**
 * What an account's snapshot allows a search, before anything is counted: its refusal
 * (suspended, locked, or not subscribed when required), else its access and whether it is
 * charged (with a charge reason; elevated accounts are not).
 */
export function decide(snapshot: MeteredAccount['snapshot'], options: AdmitOptions): Decision {
  if (snapshot.search_barred) return { refusal: Errors.forbidden('Search access suspended: too many searches. Free monitoring stays available.') };
  if (isLocked(snapshot)) return { refusal: Errors.tooManyRequests(snapshot.search_locked_until!.getTime() - Date.now()) };
  const until = snapshot.search_subscribed_until;
  const subscribed = snapshot.elevated || (until !== null && until.getTime() > Date.now());
  if (options.requireSubscription && !subscribed) return { refusal: Errors.unauthorized('A search subscription and API credits are required') };
  const charged = Boolean(options.charge) && !snapshot.elevated;
  return { access: { subscribed, lawEnforcement: snapshot.law_enforcement, elevated: snapshot.elevated }, charged };
}
