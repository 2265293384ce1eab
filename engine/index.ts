// Typed wrapper around the native search engine (engine/crates, built to engine/build/engine.node).
// The only module the server imports from engine/. Every native call runs on the engine's
// own threads (never libuv's pool, which argon2 and file I/O use; ARCHITECTURE.md,
// "Threads") and returns a Promise; arguments and answers cross as one JSON string each.
// Those requests and replies are the engine's contract (engine/crates/contract/src/), whose
// TypeScript is generated (contract.generated.ts): the options below are this wrapper's,
// with their defaults, and become the contract's requests, every field given.
// Loading only loads: the addon is built by `npm run build:engine` (and by `npm start` and
// `npm test` before they run), never here.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { BUILD_COMMAND, addonPath, addonState } from './addon';
import {
  DEFAULT_BUDGET_MS, DEFAULT_WATCH_LIMIT, FIELD_NAME_VALUES, MAX_RESULT_WINDOW,
  type ColumnMapping, type EditWellsArgs, type Entry, type FieldName, type FileSummary, type GetManyArgs,
  type GetManyTextHead, type IngestArgs, type IngestReply, type IngestTiming, type LaneStats, type MatchWatchesHead,
  type MergeArgs, type MergeFailure, type MergeReply, type Op, type ParseArgs, type ParseReply, type PasswordCountArgs,
  type PasswordCountReply, type PasswordRangeArgs, type PasswordRangeReply, type PurgeReply, type RawRecordMode,
  type SearchArgs, type SearchMode, type SearchReply, type SearchReplyArgs, type SearchTextHead, type StatsReply,
  type SuppressReply, type SuppressionReply, type TableSummary, type UpgradeArgs, type UpgradeReply,
  type UpgradedSegment as ContractUpgradedSegment, type WatchHit, type WatchPairs, type WatchStrategy,
  type WellCountsArgs, type WellCountsReply,
} from './contract.generated';

export type { Entry, FieldName, SearchMode };
export const FIELD_NAMES = FIELD_NAME_VALUES;

export interface SearchRequest {
  query: string;
  page?: number; // 1-based, default 1
  size?: number; // default 20; size <= 10,000 and page * size <= maxWindow
  /** Deepest hit the search pages to (page × size): default (and 0) 10,000, at most 50,000. */
  maxWindow?: number;
  mode?: SearchMode; // default 'exact'
  dedup?: boolean; // default true
  timeBudgetMs?: number; // default 5,000
  /** Field searched by bare terms; 'all' (default) searches every field. */
  type?: FieldName | 'all';
  /**
   * Default true: each segment part remembers the hit count of an expensive query (keyed by
   * a hash, never the text) until a removal, so the next page or a repeat only evaluates
   * the parts holding the page. A number: remember counts that took at least that many
   * microseconds per part (default 20; tests use 0). The benchmark turns it off to
   * measure the work itself.
   */
  countCache?: boolean | number;
  /**
   * The searcher may not see values (no search subscription): only one exact term, no
   * AND/OR, wildcard, regex or source filter; anything more is refused with
   * `subscription_required` before it runs (a count of it would be an oracle on hidden values).
   */
  oneTerm?: boolean;
}

export type SearchResult = SearchReply;

/**
 * `wellCounts`: a query read as `search` reads it (same language, `mode`, `type`,
 * `timeBudgetMs` and `oneTerm`, with the same defaults), answered per data well.
 */
export type WellCountsRequest = Pick<SearchRequest, 'query' | 'mode' | 'type' | 'timeBudgetMs' | 'oneTerm'> & {
  /**
   * Default false. True: also count the distinct values of the term's field that match it
   * and that a counted record holds (`email:*@example.com`: the domain's addresses exposed),
   * compared as the index compares them (emails lower-cased). The query must then be one
   * term of one field, else `invalid_argument`.
   */
  distinct?: boolean;
};

/**
 * The records matching the query in each data well (current names), most first then by
 * name: no dedup, removed and taken-down records left out; `total` is their sum.
 * `distinct`: the distinct values when asked, else null.
 */
export type WellCounts = WellCountsReply;

/** `passwordRange`: every known hash with the prefix, as suffix (lower-case hex) and record count. */
export type PasswordRange = PasswordRangeReply;

/** `searchApiText`: the entries as a JSON array's text. */
export interface ApiSearchText {
  total: number;
  tookMicros: number;
  entriesJson: string;
}

/** The engine's request for a search: every field given, the wrapper's defaults applied. */
function searchArgs(req: SearchRequest, rawRecord: RawRecordMode = 'line'): SearchArgs {
  return {
    query: req.query, mode: req.mode ?? 'exact', page: req.page ?? 1, size: req.size ?? 20,
    maxWindow: req.maxWindow || MAX_RESULT_WINDOW, dedup: req.dedup ?? true, timeBudgetMs: req.timeBudgetMs ?? DEFAULT_BUDGET_MS,
    type: req.type ?? 'all', countCache: req.countCache ?? true, rawRecord, oneTerm: req.oneTerm ?? false,
  };
}

/**
 * One monitored value. `value` as the user typed it: the engine normalises it like the
 * field's indexed terms (emails and usernames lower-cased, phones digits only, names
 * lower-cased with runs of spaces folded, domains lower-cased without a trailing dot),
 * which agrees with `matchValue` of server/src/common/monitoring-rules.ts. `field` is a
 * public field name; monitoring uses `email`, `username`, `phone`, `name` and `domain`.
 * A `domain` watch matches the email domains, `domain` values and URL hosts equal to it
 * or under it (`example.com` matches `a@mail.example.com`, `https://shop.example.com/x`
 * and `http://EXAMPLE.com:8080`, not `notexample.com` nor `example.com.evil.net`); every
 * other field matches its normalised value exactly.
 */
export interface WatchInput {
  id: string;
  field: FieldName;
  value: string;
}
export interface WatchMatch {
  id: string;
  /** Every matching record of the segment (removed ones left out). */
  total: number;
  /** The first `limit` of them (default 1,000), in document order. */
  recordIds: string[];
}
export interface MatchWatchesOptions {
  /** Record ids per watch at most (default 1,000); `total` still counts every match. */
  limit?: number;
  /**
   * How exact kinds are found: `auto` (default) picks per part and field by estimated
   * cost; `lookup` (one dictionary lookup per watched value) and `walk` (one walk of the
   * field's distinct terms probing a hash set of the watched values) force one, for
   * tests and the benchmark. Both give the same answer.
   */
  strategy?: WatchStrategy;
}

/** `getManyApiText`: the entries found as a JSON array's text. */
export interface ApiEntriesText {
  /** Entries in `entriesJson` (unknown and removed ids are left out). */
  found: number;
  entriesJson: string;
}

export type EngineStats = StatsReply;

/** Operator edits of data wells, by source (an ingest's segment id; see FORMAT.md, `wells.log`). */
export interface WellEdits {
  /** Sources taken down: hidden from every read at once, dropped by the next purge or merge. */
  delete?: string[];
  /** [source id, new well name]: the records' `database_name` and source filters follow. */
  rename?: [string, string][];
}

export type PurgeResult = PurgeReply;

const QUERY_CODES = [
  'empty', 'too_short', 'too_long', 'syntax', 'unknown_field', 'field_required', 'wildcard_start',
  'mixed_modes', 'database_name_alone', 'regex_unsupported', 'regex_too_big', 'regex_syntax',
  'bad_page', 'bad_size', 'too_deep', 'subscription_required',
] as const;

/** Codes of rejected queries; every one carries a message fit for the user. */
export type EngineQueryErrorCode = (typeof QUERY_CODES)[number];

/**
 * Codes of queries refused for the work they would take rather than for their form: the
 * engine did that work's first part (on its heavy lane) to refuse them, so they are counted
 * like searches: a caller cannot send them for free.
 */
const COST_CODES: readonly EngineQueryErrorCode[] = ['regex_too_big'];

/** A query (or paging) the engine refuses: the request was wrong, HTTP 400 material. */
export class EngineQueryError extends Error {
  override name = 'EngineQueryError';
  constructor(readonly code: EngineQueryErrorCode, message: string) {
    super(message);
  }

  /** Refused for its cost (`COST_CODES`), not its form. */
  get costly(): boolean {
    return COST_CODES.includes(this.code);
  }
}

/** A valid search that ran past its time budget: nothing wrong with the request as such. */
export class EngineTimeoutError extends Error {
  override name = 'EngineTimeoutError';
  readonly code = 'timeout';
}

/** Anything else: i/o, corrupt index, closed engine, bad arguments, internal errors. */
export class EngineError extends Error {
  override name = 'EngineError';
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

interface Native {
  configure(threads: number): string;
  poolStats(): string;
  open(dir: string): Promise<object>;
  call(handle: object, op: Op, arg: string): Promise<string>;
  parse(arg: string): Promise<string>;
  ingest(arg: string, progress: Float64Array): Promise<string>;
  merge(arg: string): Promise<string>;
  upgrade(arg: string): Promise<string>;
}

let nativePromise: Promise<Native> | undefined;

/** Loads the addon; a missing or stale one is refused with the command that builds it. */
function loadNative(): Promise<Native> {
  nativePromise ??= Promise.resolve().then(() => {
    const state = addonState();
    if (state === 'missing') throw new EngineError('not_built', `The search engine is not built (${addonPath} is missing): run ${BUILD_COMMAND}`);
    if (state === 'stale') throw new EngineError('stale_build', `The search engine is older than its sources in engine/crates: run ${BUILD_COMMAND}`);
    return createRequire(import.meta.url)(addonPath) as Native;
  });
  return nativePromise;
}

function isQueryCode(code: string): code is EngineQueryErrorCode {
  return (QUERY_CODES as readonly string[]).includes(code);
}

function translate(e: unknown): Error {
  if (e instanceof Error) {
    const code = (e as { code?: unknown }).code;
    if (code === 'timeout') return new EngineTimeoutError(e.message);
    if (typeof code === 'string' && isQueryCode(code)) return new EngineQueryError(code, e.message);
    if (typeof code === 'string') return new EngineError(code, e.message);
    return e;
  }
  return new Error(String(e));
}

async function native<T>(f: (n: Native) => Promise<T>): Promise<T> {
  const n = await loadNative();
  try {
    return await f(n);
  } catch (e) {
    throw translate(e);
  }
}

/** Validate a query exactly as a search would, without searching (throws EngineQueryError). */
export async function validateQuery(req: Pick<SearchRequest, 'query' | 'mode' | 'type' | 'page' | 'size' | 'oneTerm' | 'maxWindow'>): Promise<ParseReply> {
  const args: ParseArgs = {
    query: req.query, mode: req.mode ?? 'exact', type: req.type ?? 'all', page: req.page, size: req.size,
    maxWindow: req.maxWindow || MAX_RESULT_WINDOW, oneTerm: req.oneTerm ?? false,
  };
  return JSON.parse(await native((n) => n.parse(JSON.stringify(args)))) as ParseReply;
}

export class Engine {
  #handle: object | undefined;
  #native: Native;
  #refreshTimer: NodeJS.Timeout | undefined;

  constructor(handle: object, n: Native, readonly indexDir: string) {
    this.#handle = handle;
    this.#native = n;
  }

  async #call(op: Op, arg: string): Promise<string> {
    const h = this.#handle;
    if (!h) throw new EngineError('closed', 'the engine is closed');
    try {
      return await this.#native.call(h, op, arg);
    } catch (e) {
      throw translate(e);
    }
  }

  /** An op answered as JSON, read as its contract reply `R`. */
  async #json<R>(op: Op, arg: string): Promise<R> {
    return JSON.parse(await this.#call(op, arg)) as R;
  }

  async search(req: SearchRequest): Promise<SearchResult> {
    return this.#json<SearchReply>('search', JSON.stringify(searchArgs(req)));
  }

  /**
   * The search with its entries left as JSON text, shaped for the public API: no
   * `raw_record`, or with `lawEnforcement` `raw_record: {le_only: true, unstructured}`. A
   * reply can embed `entriesJson` as it is, without parsing and serialising the entries
   * again (the /v2/search hot path).
   */
  async searchApiText(req: SearchRequest, lawEnforcement: boolean): Promise<ApiSearchText> {
    const text = await this.#call('searchText', JSON.stringify(searchArgs(req, lawEnforcement ? 'le' : 'omit')));
    const cut = text.indexOf('\n');
    const head = JSON.parse(text.slice(0, cut)) as SearchTextHead;
    return { total: head.total, tookMicros: head.tookMicros, entriesJson: text.slice(cut + 1) };
  }

  /**
   * The search answered as the whole body of a public API reply,
   * `{"balance","entries","took","total"}`, in a Buffer: the engine writes the bytes sent
   * once (entries shaped as `searchApiText` shapes them; `took` from the engine's own clock)
   * and the server sends them as they are. `balance` is the caller's credits after this
   * search, known before it runs.
   */
  async searchApiReply(req: SearchRequest, lawEnforcement: boolean, balance: number): Promise<Buffer> {
    const h = this.#handle;
    if (!h) throw new EngineError('closed', 'the engine is closed');
    const args: SearchReplyArgs = { balance: Math.trunc(balance), search: searchArgs(req, lawEnforcement ? 'le' : 'omit') };
    try {
      return (await this.#native.call(h, 'searchReply', JSON.stringify(args))) as unknown as Buffer;
    } catch (e) {
      throw translate(e);
    }
  }

  /**
   * Password check: the records (dedup on, removed ones left out) holding this hash (hex,
   * any case) as a stored `hashed_password` or as the SHA-256, SHA-1 or NTLM of their
   * plaintext `password` (derived at ingest, formats 3 and 12); a record found both ways
   * counts once. The length tells the kind: 64 digits SHA-256, 40 SHA-1, 32 NTLM (or a
   * stored 32-digit hash such as MD5).
   */
  async passwordCount(hash: string): Promise<PasswordCountReply> {
    const args: PasswordCountArgs = { hash };
    return this.#json<PasswordCountReply>('passwordCount', JSON.stringify(args));
  }

  /**
   * k-anonymity range: every hash (stored `hashed_password` values, derived SHA-256, SHA-1
   * and NTLM of plaintext passwords) starting with `prefix` (5 to 64 hex digits), with its
   * count of records (no dedup; removed ones left out). After a 5-digit prefix, a suffix's
   * length tells its kind: 59 SHA-256, 35 SHA-1, 27 NTLM or a stored 32-digit hash.
   * Segments of formats before 12 answer no NTLM until merged or upgraded.
   */
  async passwordRange(prefix: string): Promise<PasswordRange> {
    const args: PasswordRangeArgs = { prefix };
    return this.#json<PasswordRangeReply>('passwordRange', JSON.stringify(args));
  }

  /**
   * Which data wells hold records matching the query, and how many each: a search's hits
   * counted per well (`WellCounts`), no entry rendered. Budgeted and refused as a search is
   * (`EngineQueryError`, `EngineTimeoutError`); a scanning query runs on the heavy lane.
   */
  async wellCounts(req: WellCountsRequest): Promise<WellCounts> {
    const args: WellCountsArgs = {
      query: req.query, mode: req.mode ?? 'exact', timeBudgetMs: req.timeBudgetMs ?? DEFAULT_BUDGET_MS,
      type: req.type ?? 'all', oneTerm: req.oneTerm ?? false, distinct: req.distinct ?? false,
    };
    return this.#json<WellCountsReply>('wellCounts', JSON.stringify(args));
  }

  /** Same checks as search (the query, and the paging when given), no search. */
  parse(req: Pick<SearchRequest, 'query' | 'mode' | 'type' | 'page' | 'size' | 'oneTerm' | 'maxWindow'>): Promise<ParseReply> {
    return validateQuery(req);
  }

  async get(id: string): Promise<Entry | null> {
    return this.#json<Entry | null>('get', id);
  }

  /** Tombstone an entry (and every record with the same content). False if unknown or already removed. */
  async remove(id: string): Promise<boolean> {
    return this.#json<boolean>('remove', id);
  }

  /**
   * Opt-out: keeps the address out of every read path, in the records there are and in every
   * segment published later, until `unsuppress` (engine/crates/format/src/suppress.rs; only a keyed hash of
   * the address is stored). `records`: how many records hold it, removed ones included.
   */
  async suppress(email: string): Promise<SuppressReply> {
    return this.#json<SuppressReply>('suppress', email);
  }

  /** Lifts an opt-out: its records come back unless removed for another reason. False when the address was not suppressed. */
  async unsuppress(email: string): Promise<boolean> {
    return this.#json<boolean>('unsuppress', email);
  }

  /** Whether the address is suppressed, and since when (unix seconds). */
  async suppression(email: string): Promise<SuppressionReply> {
    return this.#json<SuppressionReply>('suppression', email);
  }

  /** Pick up segments and removals written by other processes now (searches also check at most once a second). */
  async refresh(): Promise<boolean> {
    return this.#json<boolean>('refresh', '');
  }

  /**
   * Monitoring: the watches that match records of segment `segmentId` (an ingest's
   * `segmentId`; after a merge, that ingest's records inside the merged segment), in the
   * order given, only those with at least one match. Removed records are never matched.
   * The cost grows with the segment's distinct terms, not with the number of watches
   * (100,000 watches against 1M records: engine/BENCHMARKS.md, "Monitoring"). Runs on
   * the engine's heavy lane, off the event loop. An unknown segment is an `EngineError`
   * (`invalid_argument`).
   */
  async matchWatches(segmentId: string, watches: WatchInput[], opts: MatchWatchesOptions = {}): Promise<WatchMatch[]> {
    // A header line, then the watches as [field, value] pairs (cheaper to decode than
    // objects); the engine answers by position and the ids are put back here.
    const head: MatchWatchesHead = { segmentId, limit: opts.limit ?? DEFAULT_WATCH_LIMIT, strategy: opts.strategy ?? 'auto' };
    const pairs: WatchPairs = watches.map((w) => [w.field, w.value]);
    const found = await this.#json<WatchHit[]>('matchWatches', `${JSON.stringify(head)}\n${JSON.stringify(pairs)}`);
    return found.map((m) => ({ id: (watches[m.i] as WatchInput).id, total: m.total, recordIds: m.recordIds }));
  }

  /**
   * Entries by id in one native call, in the order given: `null` for an unknown or
   * removed id. Same shape as `get` (with `raw_record`); each store block is
   * decompressed once for all the ids in it.
   */
  async getMany(ids: string[]): Promise<(Entry | null)[]> {
    const args: GetManyArgs = { ids, rawRecord: 'line' };
    return this.#json<(Entry | null)[]>('getMany', JSON.stringify(args));
  }

  /**
   * `getMany` shaped for the public API like `searchApiText`: no `raw_record`, or with
   * `lawEnforcement` `raw_record: {le_only: true, unstructured}`; unknown and removed ids
   * left out, the others in the order given, as a JSON array's text that a reply can
   * embed without parsing it (/v2/monitoring/get-report).
   */
  async getManyApiText(ids: string[], lawEnforcement: boolean): Promise<ApiEntriesText> {
    const args: GetManyArgs = { ids, rawRecord: lawEnforcement ? 'le' : 'omit' };
    const text = await this.#call('getManyText', JSON.stringify(args));
    const cut = text.indexOf('\n');
    const head = JSON.parse(text.slice(0, cut)) as GetManyTextHead;
    return { found: head.found, entriesJson: text.slice(cut + 1) };
  }

  async stats(): Promise<EngineStats> {
    return this.#json<StatsReply>('stats', '');
  }

  /**
   * Append well edits to the index's `wells.log` (under the index lock, fsynced). This
   * engine applies them at once; every other process serving the index at its next check
   * (at most a second with `autoRefresh`).
   */
  async editWells(edits: WellEdits): Promise<void> {
    const args: EditWellsArgs = { delete: edits.delete ?? [], rename: edits.rename ?? [] };
    await this.#call('editWells', JSON.stringify(args));
  }

  /** Reclaim the bytes of taken-down sources now (see `PurgeReply`). */
  async purge(): Promise<PurgeResult> {
    return this.#json<PurgeReply>('purge', '');
  }

  /** Merge this index's segments into one (or, with `all: false`, only past `maxSegments`); the new set is served at once. */
  async merge(opts: MergeOptions = {}): Promise<MergeResult> {
    if (!this.#handle) throw new EngineError('closed', 'the engine is closed');
    const r = await mergeIndex(this.indexDir, opts);
    await this.refresh();
    return r;
  }

  /** Refresh on a timer too, so an idle server is current before its next search. */
  autoRefresh(everyMs = 1000): void {
    if (this.#refreshTimer) return;
    this.#refreshTimer = setInterval(() => void this.refresh().catch(() => undefined), everyMs);
    this.#refreshTimer.unref();
  }

  async close(): Promise<void> {
    if (this.#refreshTimer) clearInterval(this.#refreshTimer);
    this.#refreshTimer = undefined;
    if (!this.#handle) return;
    await this.#call('close', '');
    this.#handle = undefined;
  }
}

export interface EngineThreadOptions {
  /**
   * Threads of the quick lane and of the heavy lane each (ARCHITECTURE.md, "Threads");
   * default max(2, cores). The process's first engine call starts them: later values are
   * ignored (the count in effect is answered by `enginePoolStats`).
   */
  threads?: number;
  /**
   * Bound of the process-wide cache of decompressed store blocks, in MiB (0: no cache;
   * default 64; FORMAT.md, store). Read when the cache is first used, like `threads`: set
   * it before the first search. Sets `LEAKWELL_STORE_CACHE_MB`, which the engine reads.
   */
  storeCacheMb?: number;
}

/** Per lane of the engine's threads: threads, calls running, calls waiting, calls done. */
export type EngineLaneStats = LaneStats;

/** The engine's lanes now (empty before the first engine call starts them). */
export async function enginePoolStats(): Promise<EngineLaneStats[]> {
  const n = await loadNative();
  return JSON.parse(n.poolStats()) as LaneStats[];
}

/**
 * The well edits of an index (its `wells.log`, FORMAT.md) as the engine reads them: the
 * taken-down sources and each renamed source's last name. For tools that read segment.json
 * files themselves (the catalogue replay of `npm run ingest`).
 */
export function readWellEdits(indexDir: string): { deleted: Set<string>; renamed: Map<string, string> } {
  const deleted = new Set<string>();
  const renamed = new Map<string, string>();
  let text: string;
  try {
    text = readFileSync(join(indexDir, 'wells.log'), 'utf8');
  } catch {
    return { deleted, renamed };
  }
  // A torn last line (no newline yet) is ignored, as the engine does.
  for (const line of text.slice(0, text.lastIndexOf('\n') + 1).split('\n')) {
    const [op, id, name, ...extra] = line.split('\t');
    if (extra.length || !id) continue;
    if (op === 'delete' && name === undefined) deleted.add(id);
    else if (op === 'rename' && name) renamed.set(id, name);
  }
  return { deleted, renamed };
}

export async function openEngine(indexDir: string, options: EngineThreadOptions = {}): Promise<Engine> {
  const n = await loadNative();
  try {
    if (options.threads !== undefined) n.configure(options.threads);
    if (options.storeCacheMb !== undefined) process.env.LEAKWELL_STORE_CACHE_MB = String(options.storeCacheMb);
    return new Engine(await n.open(indexDir), n, indexDir);
  } catch (e) {
    throw translate(e);
  }
}

export type IngestFormat = 'auto' | 'jsonl' | 'json-array' | 'csv' | 'combo' | 'sql';

/** `IngestArgs` (the engine's request, its fields and defaults) without the index, narrowed where the wrapper knows more. */
export interface IngestOptions extends Omit<IngestArgs, 'indexDir' | 'format' | 'map' | 'catalogue'> {
  format?: IngestFormat;
  /** Column or JSON key -> field, for names the built-in aliases do not know. */
  map?: Record<string, FieldName>;
  /** Kept verbatim in segment.json (the catalogue metadata of this ingest). */
  catalogue?: { date: string | null; description: string; sensitive: boolean };
}

/** A column of a CSV file or a SQL table, and the field it maps to (null: none). */
export type IngestColumn = ColumnMapping;
/** One table of a SQL dump, as the ingest saw it. */
export type IngestTable = TableSummary;
/** One input stream of an ingest: a file, or an archive member (`archive!member`). */
export type IngestFileSummary = FileSummary;

/** `MergeArgs` without the index, every field optional: `all` is true unless false. */
export type MergeOptions = Partial<Omit<MergeArgs, 'indexDir'>>;

export type MergeResult = MergeReply;

export interface IngestProgress {
  records: number;
  bytesRead: number;
  bytesTotal: number;
  badLines: number;
  filesDone: number;
  done: boolean;
}

/**
 * The ingest's summary (`IngestReply`), typed for a real ingest: `timing` is left out only by
 * a dry run; `merge` is the automatic merge, done or failed.
 */
export type IngestResult = Omit<IngestReply, 'timing' | 'merge'> & {
  timing: IngestTiming;
  merge?: (MergeResult & { error?: undefined }) | MergeFailure | null;
};

/**
 * Merge segments of `indexDir` into one new segment, published atomically like an ingest
 * (works whether or not a server has the index open; it picks the change up on refresh).
 */
export async function mergeIndex(indexDir: string, opts: MergeOptions = {}): Promise<MergeResult> {
  const args: MergeArgs = { indexDir, all: opts.all ?? true, maxSegments: opts.maxSegments, partRecords: opts.partRecords };
  return JSON.parse(await native((n) => n.merge(JSON.stringify(args)))) as MergeReply;
}

/** One segment rewritten by `upgradeIndex`. */
export type UpgradedSegment = ContractUpgradedSegment;
export type UpgradeResult = UpgradeReply;

/**
 * Rewrite every segment of `indexDir` older than the engine's format in the current one, each
 * alone and published like a merge (safe while servers serve the index; they pick each new
 * segment up on refresh). Refuses, before rewriting anything, an index holding a segment too
 * old for this engine to read (`EngineError` code `unsupported_format`).
 */
export async function upgradeIndex(indexDir: string): Promise<UpgradeResult> {
  const args: UpgradeArgs = { indexDir };
  return JSON.parse(await native((n) => n.upgrade(JSON.stringify(args)))) as UpgradeReply;
}

/** Ingest files into a new segment of `indexDir`, published atomically when done. */
export async function ingestFiles(indexDir: string, opts: IngestOptions, onProgress?: (p: IngestProgress) => void, progressEveryMs = 250): Promise<IngestResult> {
  const buf = new Float64Array(6);
  const read = (): IngestProgress => ({
    records: buf[0] ?? 0, bytesRead: buf[1] ?? 0, bytesTotal: buf[2] ?? 0, badLines: buf[3] ?? 0, filesDone: buf[4] ?? 0, done: buf[5] === 1,
  });
  const timer = onProgress ? setInterval(() => onProgress(read()), progressEveryMs) : undefined;
  try {
    const args: IngestArgs = { ...opts, indexDir };
    const out = await native((n) => n.ingest(JSON.stringify(args), buf));
    onProgress?.(read());
    return JSON.parse(out) as IngestResult;
  } finally {
    if (timer) clearInterval(timer);
  }
}
