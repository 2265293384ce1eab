/**
 * Search rules shared by the dashboard (POST /search) and the public API (POST /v2/search):
 * who may see what, how searches are counted and abuse is limited, how engine entries
 * become the two wire shapes. The query language itself is the engine's (one parser).
 */
import { isIP } from 'node:net';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import { AppError, Errors } from '../infra/errors';
import { EngineQueryError, FIELD_NAMES, type Engine, type Entry, type FieldName, type SearchMode } from '../../../engine/index';
import * as repo from './search-repository';

export const DASHBOARD_PAGE_SIZE = 20;
export const DASHBOARD_MAX_PAGE = 499;
export const MAX_DEPTH = 10_000;

export const SEARCH_TYPES = ['all', 'email', 'username', 'password', 'hashed_password', 'ip_address', 'name', 'address', 'phone', 'vin', 'domain_scan'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export interface SearchAccess {
  subscribed: boolean;
  lawEnforcement: boolean;
  elevated: boolean;
  credits: number;
}

const IPV4_WILDCARD = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3}|\*)\.(\d{1,3}|\*)$/;

function isIpPattern(value: string): boolean {
  const match = IPV4_WILDCARD.exec(value);
  return match !== null && match.slice(1).every((part) => part === '*' || Number(part) <= 255);
}

/** A trailing `&wildcard` or `&regex` is a toggle typed into the query; it is not sent. */
export function stripModeSuffix(query: string): string {
  return query.replace(/&(wildcard|regex)\s*$/i, '').trim();
}

/** Spec 2 §5, enforced on the server as in the browser. Returns every problem. */
export function dashboardQueryProblems(query: string, type: SearchType, wildcard: boolean): string[] {
  if (query.length === 0) return ['Empty Query'];
  const problems: string[] = [];
  if (query.length < 4) problems.push('Query not long enough (minimum 4 characters)');
  if (query.length > 200) problems.push('Query Too Long');
  if (type === 'ip_address') {
    const bare = query.replace(/"/g, '');
    if (!(isIP(bare) !== 0 || (wildcard && isIpPattern(bare)))) problems.push('Invalid IP Address Format');
  }
  if (type === 'phone' && (query.length < 4 || query.length > 15 || !/^[0-9]/.test(query))) problems.push('Invalid Phone Format');
  return problems;
}

export function engineType(type: SearchType): FieldName | 'all' {
  return type === 'domain_scan' ? 'domain' : type;
}

export function searchMode(regex: boolean, wildcard: boolean): SearchMode {
  if (regex && wildcard) throw Errors.badRequest('Wildcard and regex cannot be used together');
  return regex ? 'regex' : wildcard ? 'wildcard' : 'exact';
}

/** "179µs", "12ms", "1.25s": the `took` string API clients expect. */
export function formatTook(micros: number): string {
  if (micros < 1000) return `${Math.max(0, Math.round(micros))}µs`;
  if (micros < 1_000_000) return `${Math.round(micros / 1000)}ms`;
  return `${(micros / 1_000_000).toFixed(2)}s`;
}

/** The headline field of a record: the searched field when it has values, else the first present. */
export function primaryField(entry: Entry, type: FieldName | 'all'): string {
  if (type !== 'all' && entry[type]?.length) return type;
  return FIELD_NAMES.find((field) => entry[field]?.length) ?? 'database_name';
}

export function createSearchService(deps: { db: Kysely<Database>; engine: Engine; config: Config }) {
  const { db, engine, config } = deps;

  /**
   * Counts the search and applies the abuse rules; with `charge`, also takes one credit
   * (elevated accounts are not charged). Throws when the account may not search.
   */
  async function admit(userId: string, options: { charge?: string; requireSubscription?: boolean } = {}): Promise<SearchAccess & { charged: boolean }> {
    const account = await repo.getSearchAccount(db, userId);
    if (!account) throw Errors.unauthorized();
    if (account.search_barred) throw Errors.forbidden('Search access suspended: too many searches. Free monitoring stays available.');
    const lockedFor = account.search_locked_until ? account.search_locked_until.getTime() - Date.now() : 0;
    if (lockedFor > 0) throw Errors.tooManyRequests(lockedFor);
    const until = account.search_subscribed_until;
    const subscribed = account.elevated || (until !== null && until.getTime() > Date.now());
    if (options.requireSubscription && !subscribed) throw Errors.unauthorized('A search subscription and API credits are required');
    const charge = Boolean(options.charge) && !account.elevated;
    const counted = await repo.countAndCharge(db, userId, { charge, dailyLimit: config.SEARCH_DAILY_LIMIT, reason: options.charge ?? '' });
    if (counted.searches > config.SEARCH_DAILY_LIMIT) {
      const locked = await repo.lockSearch(db, userId, config.SEARCH_LOCK_HOURS, config.SEARCH_BAR_AFTER_LOCKS);
      throw Errors.tooManyRequests(locked?.search_locked_until ? locked.search_locked_until.getTime() - Date.now() : config.SEARCH_LOCK_HOURS * 3_600_000);
    }
    if (charge && counted.balance === undefined) throw new AppError(403, 'INSUFFICIENT_CREDITS', 'Insufficient Credits');
    return {
      subscribed,
      lawEnforcement: account.law_enforcement,
      elevated: account.elevated,
      credits: counted.balance ?? account.search_credits,
      charged: charge,
    };
  }

  async function run(request: { query: string; type: FieldName | 'all'; mode: SearchMode; page: number; size: number; dedup: boolean }) {
    try {
      return await engine.search({ ...request, timeBudgetMs: config.SEARCH_TIME_BUDGET_MS });
    } catch (error) {
      if (error instanceof EngineQueryError) throw Errors.badRequest(error.message);
      throw error;
    }
  }

  async function validate(query: string, mode: SearchMode, type: FieldName | 'all', page: number, size: number) {
    try {
      await engine.parse(query, mode, type);
    } catch (error) {
      if (error instanceof EngineQueryError) throw Errors.badRequest(error.message);
      throw error;
    }
    if (page * size > MAX_DEPTH) throw Errors.badRequest('page * size must be at most 10,000');
  }

  return {
    admit,
    validate,
    run,

    async dashboard(userId: string, input: { query: string; type: string; page: number; regex: boolean; wildcard: boolean; deduplicate: boolean }) {
      if (!(SEARCH_TYPES as readonly string[]).includes(input.type)) throw Errors.badRequest('Unknown search type');
      const type = input.type as SearchType;
      const query = stripModeSuffix(input.query);
      const problems = dashboardQueryProblems(query, type, input.wildcard);
      if (problems.length) throw Errors.badRequest(problems.join('\n'));
      const mode = searchMode(input.regex, input.wildcard);
      const page = Math.min(Math.max(1, Math.trunc(input.page)), DASHBOARD_MAX_PAGE);
      await validate(query, mode, engineType(type), page, DASHBOARD_PAGE_SIZE);
      const access = await admit(userId);
      const result = await run({ query, type: engineType(type), mode, page, size: DASHBOARD_PAGE_SIZE, dedup: input.deduplicate });
      const stats = await engine.stats();
      const results = access.subscribed
        ? result.entries.map((entry) => {
            const { raw_record, ...fields } = entry;
            return {
              ...fields,
              primary_field: primaryField(entry, engineType(type)),
              ...(access.lawEnforcement ? { raw_record } : {}),
            };
          })
        : [];
      return {
        results,
        total_results: result.total,
        assets_searched: stats.records,
        elapsed_time: Math.round(result.tookMicros) / 1000,
        data_wells: Object.keys(stats.wells).length,
        values_hidden: !access.subscribed,
      };
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
