/**
 * The load scenarios as data: what the driver (driver.ts, autocannon in a child
 * process) is asked to run, what it reports, and the checks on the report. The same
 * scenarios for k6 are the `*.k6.js` scripts next to this file.
 *
 *   api-keys   many keys, each at its limit (rate per second of API_RATE_PER_SECOND, evenly
 *              spaced), on POST /v2/search: zero 429, zero 5xx, sustained keys × rate.
 *   dashboard  users sign in (POST /authentication/login, each sign-in from its own
 *              address) and search (POST /search): zero 429, zero 5xx.
 *   one-key    100 connections on one key, as fast as they go: every request above the
 *              bucket gets 429 with Retry-After, and the key gets exactly rate × seconds +
 *              burst answers (± one second's worth); zero 5xx.
 */

export const SCENARIOS = ['api-keys', 'dashboard', 'one-key'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

/**
 * A run's own namespace: its Redis keys' prefix with REDIS_URL, its queues' PostgreSQL
 * schema without it, so letters, digits and underscores only (infra/queues.ts
 * NAMESPACE_PATTERN: the PostgreSQL backend takes a simple identifier only, so a hyphen
 * would stop `npm run loadtest` on the embedded default).
 */
export function runNamespace(pid: number): string {
  return `loadtest_${pid}`;
}

export type DriverJob =
  | {
      scenario: 'api-keys';
      url: string;
      header: string;
      body: string;
      /** One per customer; each key also gets its own client address. */
      keys: string[];
      ratePerKey: number;
      seconds: number;
    }
  | {
      scenario: 'dashboard';
      url: string;
      users: { email: string; password: string }[];
      /** Exact email searches, chosen in turn. */
      emails: string[];
      searchesPerSignIn: number;
      seconds: number;
    }
  | {
      scenario: 'one-key';
      url: string;
      header: string;
      body: string;
      key: string;
      connections: number;
      seconds: number;
    }
  | {
      /** Plain throughput (the floor comparison): keys in turn, no pacing. */
      scenario: 'throughput';
      url: string;
      path: string;
      header: string;
      body: string;
      keys: string[];
      connections: number;
      seconds: number;
    };

/** Answers of one kind of request (search, sign-in, …). */
export interface Tally {
  requests: number;
  '2xx': number;
  /** Of the 2xx searches: answers without the record searched for (every search asks for one that exists). */
  noHit: number;
  '429': number;
  /** Of the 429: refused by the per-account limit on searches at once (not a leaky bucket). */
  concurrency429: number;
  /** 4xx other than 429. */
  '4xx': number;
  '5xx': number;
  other: number;
  /** 429 answers without a usable Retry-After (whole seconds ≥ 1). */
  noRetryAfter: number;
  p50: number;
  p99: number;
  max: number;
}

export interface DriverReport {
  /** Wall time from the first request to the end of the run. */
  seconds: number;
  /** By request kind: `search` for the API scenarios; `sign-in` and `search` for the dashboard. */
  kinds: Record<string, Tally>;
  /** 2xx search answers per key or user, in the order given. */
  acceptedPerIdentity: number[];
  /** 2xx answers per whole second of the run (by the time their request was sent). */
  acceptedPerSecond: number[];
  /** Per key or user: when each search was sent (ms from the first request, ascending). */
  sendTimes: number[][];
  /** Connection errors and timeouts seen by the load tool. */
  errors: number;
  timeouts: number;
  /** One example of each unexpected status (body cut short), for the operator. */
  samples: string[];
}

export interface Verdict {
  lines: string[];
  failures: string[];
}

/**
 * How many of these sends (ms, ascending) a leaky bucket would refuse if it saw them when
 * they were sent: 0 means the client kept to the limit, so a 429 from the bucket comes from
 * the server deciding later than the request was sent (the GCRA of infra/rate-limiter.ts).
 */
export function refusedAtSendTimes(times: number[], bucket: { ratePerSecond: number; burst: number }): number {
  const interval = 1000 / bucket.ratePerSecond;
  const limit = interval * bucket.burst;
  let tat = -Infinity;
  let refused = 0;
  for (const now of times) {
    const newTat = Math.max(tat, now) + interval;
    if (newTat - now > limit) refused++;
    else tat = newTat;
  }
  return refused;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)]! : 0;
}

const pad = (text: string | number, width: number) => String(text).padStart(width);

export function formatTally(kind: string, tally: Tally, seconds: number): string {
  return (
    `  ${kind.padEnd(8)} ${pad((tally.requests / seconds).toFixed(0), 6)} req/s` +
    `  p50 ${pad(tally.p50.toFixed(1), 6)} ms  p99 ${pad(tally.p99.toFixed(1), 6)} ms` +
    `  2xx ${pad(tally['2xx'], 6)}  429 ${pad(tally['429'], 6)}  4xx ${pad(tally['4xx'], 4)}  5xx ${pad(tally['5xx'], 4)}` +
    (tally.concurrency429 ? `  (429 for searches at once: ${tally.concurrency429})` : '') +
    (tally.other ? `  other ${tally.other}` : '')
  );
}

/** The targets of the floor comparison: how close /v2/search must come to a bare Fastify route. */
export const FLOOR_TARGETS = {
  /** `/v2/search` requests/s over the floor's, at the same number of connections. */
  ratio: 0.8,
  /** A search's p50 latency minus the floor's, one connection (no queueing), in ms. */
  addedP50Ms: 0.5,
};

/** The single sequential client (sequential.ts): one keep-alive connection, a bare route and a one-hit search in turn. */
export interface SequentialJob {
  url: string;
  header: string;
  key: string;
  body: string;
  /** Text every search answer holds (the record searched for). */
  expect: string;
  /** Back-to-back pairs, then paced pairs at `paceHz` pairs a second. */
  pairs: number;
  pacedPairs: number;
  paceHz: number;
  /** A search answering a large page (`size` 10,000), and the entries it holds: the cost of an entry end to end. */
  page?: { body: string; entries: number };
}

/** p50 and p99 round trips (ms) of each kind, and the search's p50 less the bare route's. */
export interface SequentialPhase {
  pairs: number;
  paceHz: number;
  floorP50: number;
  searchP50: number;
  floorP99: number;
  searchP99: number;
  addedP50: number;
  /** Search answers other than a 200 holding the record searched for. */
  failures: number;
  /** p50 of each kind when it went first in its pair (after the pause, when paced: cold caches). */
  firstFloorP50: number;
  firstSearchP50: number;
  /** p50 of the engine's own `took` in the search answers (µs), when they carry one in µs. */
  tookP50?: number;
}

export interface SequentialReport {
  backToBack: SequentialPhase;
  paced: SequentialPhase;
  /** The large page's p50 less the bare route's, back to back; `failures`: answers without every entry. */
  page?: { entries: number; floorP50: number; pageP50: number; failures: number };
}

/** A one-hit /v2/search at p50 less a bare route's, one client waiting for each answer, in ms. */
export const SEQUENTIAL_TARGET_MS = 0.15;

/** An entry of a large /v2/search page end to end (the client's round trip less the bare route's), in µs. */
export const ENTRY_TARGET_US = 0.5;

/** One line per phase, met or missed on each phase's added p50. */
/** A sequential figure in ms, to the microsecond. */
const ms3 = (n: number) => `${n.toFixed(3)} ms`;

export function sequentialVerdict(report: SequentialReport): { lines: string[]; met: boolean } {
  const line = (name: string, p: SequentialPhase) => {
    // Paced, each kind is half cold (first after the pause) and half not, so the p50 of
    // either can fall on whichever side of that gap: the cold halves are judged too, each
    // kind's first-after-the-pause p50 beside the other's.
    const coldAdded = p.firstSearchP50 - p.firstFloorP50;
    const met = p.addedP50 <= SEQUENTIAL_TARGET_MS && (p.paceHz === 0 || coldAdded <= SEQUENTIAL_TARGET_MS) && p.failures === 0;
    return {
      met,
      text:
        `sequential ${name}: /livez p50 ${ms3(p.floorP50)} p99 ${ms3(p.floorP99)}, /v2/search p50 ${ms3(p.searchP50)} p99 ${ms3(p.searchP99)}, ` +
        `added p50 ${ms3(p.addedP50)}${p.paceHz === 0 ? '' : `, first after the pause ${ms3(coldAdded)}`} (${p.pairs} pairs${p.failures ? `, ${p.failures} failed answers` : ''}; target ≤ ${ms3(SEQUENTIAL_TARGET_MS)}): ${met ? 'met' : 'missed'}`,
    };
  };
  const a = line('back to back', report.backToBack);
  const b = line(`paced at ${report.paced.paceHz} req/s`, report.paced);
  const lines = [a.text, b.text];
  let met = a.met && b.met;
  if (report.page) {
    const p = report.page;
    const perEntry = ((p.pageP50 - p.floorP50) * 1000) / p.entries;
    const ok = perEntry <= ENTRY_TARGET_US && p.failures === 0;
    met &&= ok;
    lines.push(
      `sequential page of ${p.entries.toLocaleString('en-US')} entries: /v2/search p50 ${ms3(p.pageP50)} less /livez p50 ${ms3(p.floorP50)}: ${perEntry.toFixed(3)} µs an entry end to end` +
        `${p.failures ? ` (${p.failures} incomplete answers)` : ''} (target ≤ ${ENTRY_TARGET_US} µs): ${ok ? 'met' : 'missed'}`,
    );
  }
  return { lines, met };
}

/** Server-side p50s (µs, the request event to the response's `finish`) of each path, after an idle gap and not. */
export interface ServerTimes {
  afterIdle: Record<string, number>;
  following: Record<string, number>;
}

/**
 * Where a paced one-hit search's time goes, to tell what to work on when it misses: its cold
 * half (first in its pair, after the pause) beside the bare route's and the engine's own
 * `took`; the same POST on a bare Fastify server with no application code (the framework's
 * share); and the server's own time of each request, after an idle gap and not.
 */
export function sequentialProfile(product: SequentialReport, bare?: SequentialReport, server?: ServerTimes): string[] {
  const p = product.paced;
  const lines = [
    `profile: paced, the request first after the pause (cold caches), p50: /livez ${ms3(p.firstFloorP50)}, /v2/search ${ms3(p.firstSearchP50)} (+${ms3(p.firstSearchP50 - p.firstFloorP50)})` +
      `${p.tookP50 === undefined ? '' : `, of which the engine's own took ${p.tookP50} µs`}; back to back the engine's took is ${product.backToBack.tookP50 ?? '-'} µs`,
  ];
  if (bare) {
    lines.push(
      `profile: bare Fastify (loadtest/floor-server.ts: the same POST body and schema, no application code) over its own /livez: back to back +${ms3(bare.backToBack.addedP50)}, ` +
        `paced +${ms3(bare.paced.addedP50)} at p50 (first after the pause +${ms3(bare.paced.firstSearchP50 - bare.paced.firstFloorP50)})`,
    );
  }
  if (server) {
    const us = (r: Record<string, number>, path: string) => (r[path] === undefined ? '-' : `${r[path]!.toFixed(0)} µs`);
    lines.push(
      `profile: server side, request event to response finish, p50: after an idle gap of 50 ms or more /livez ${us(server.afterIdle, '/livez')}, /v2/search ${us(server.afterIdle, '/v2/search')}; ` +
        `otherwise /livez ${us(server.following, '/livez')}, /v2/search ${us(server.following, '/v2/search')}`,
    );
  }
  return lines;
}

/** One side-by-side round of the floor comparison: throughput under load, then latency on one connection. */
export interface FloorRound {
  floorRps: number;
  searchRps: number;
  floorLatency: Pick<Tally, 'p50' | 'p99'>;
  searchLatency: Pick<Tally, 'p50' | 'p99'>;
  /**
   * CPU time (user + system, every thread) each server process spent per answered request
   * during the throughput run, in µs: the figure a loaded machine moves least.
   */
  floorCpuUs?: number;
  searchCpuUs?: number;
}

/** Each round's ratio and added latency, their medians, and met or missed for both targets (on the medians). */
export function floorVerdict(rounds: FloorRound[]): { lines: string[]; ratioMet: boolean; latencyMet: boolean } {
  const ms = (n: number) => `${n.toFixed(2)} ms`;
  const lines = rounds.map(
    (r, i) =>
      `  round ${i + 1}: floor ${pad(r.floorRps.toFixed(0), 6)} req/s, search ${pad(r.searchRps.toFixed(0), 6)} req/s, ratio ${(100 * (r.searchRps / r.floorRps)).toFixed(1)}%; ` +
      `one connection: floor p50 ${ms(r.floorLatency.p50)} p99 ${ms(r.floorLatency.p99)}, search p50 ${ms(r.searchLatency.p50)} p99 ${ms(r.searchLatency.p99)}, ` +
      `added p50 ${ms(r.searchLatency.p50 - r.floorLatency.p50)} p99 ${ms(r.searchLatency.p99 - r.floorLatency.p99)}` +
      (r.floorCpuUs !== undefined && r.searchCpuUs !== undefined
        ? `; server CPU per request: floor ${r.floorCpuUs.toFixed(1)} µs, search ${r.searchCpuUs.toFixed(1)} µs (floor/search ${(100 * (r.floorCpuUs / r.searchCpuUs)).toFixed(1)}%)`
        : ''),
  );
  // The middle value, or the mean of the two middle ones (an even number of rounds favours neither).
  const middle = (values: number[]) => {
    const sorted = [...values].sort((x, y) => x - y);
    const half = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
  };
  const ratio = middle(rounds.map((r) => r.searchRps / r.floorRps));
  const addedP50 = middle(rounds.map((r) => r.searchLatency.p50 - r.floorLatency.p50));
  const addedP99 = middle(rounds.map((r) => r.searchLatency.p99 - r.floorLatency.p99));
  const ratioMet = ratio >= FLOOR_TARGETS.ratio;
  const latencyMet = addedP50 <= FLOOR_TARGETS.addedP50Ms;
  const of = rounds.length > 1 ? `median of ${rounds.length} rounds` : 'one round';
  lines.push(
    `throughput: /v2/search at ${(100 * ratio).toFixed(1)}% of the floor (${of}; target ≥ ${100 * FLOOR_TARGETS.ratio}%): ${ratioMet ? 'met' : 'missed'}`,
    `latency: a one-hit exact search adds ${ms(addedP50)} at p50 (${ms(addedP99)} at p99) over the floor (${of}; target ≤ ${ms(FLOOR_TARGETS.addedP50Ms)} at p50): ${latencyMet ? 'met' : 'missed'}`,
  );
  const cpu = rounds.filter((r) => r.floorCpuUs !== undefined && r.searchCpuUs !== undefined);
  if (cpu.length === rounds.length) {
    const floorCpu = middle(cpu.map((r) => r.floorCpuUs!));
    const searchCpu = middle(cpu.map((r) => r.searchCpuUs!));
    lines.push(
      `server CPU per request (${of}): floor ${floorCpu.toFixed(1)} µs, /v2/search ${searchCpu.toFixed(1)} µs; the floor's is ${(100 * (floorCpu / searchCpu)).toFixed(1)}% of the search's (the ratio both would reach on cores given to the servers alone)`,
    );
  }
  return { lines, ratioMet, latencyMet };
}

function common(report: DriverReport, failures: string[], lines: string[]) {
  for (const [kind, tally] of Object.entries(report.kinds)) {
    if (tally.concurrency429) {
      lines.push(`  ${kind}: ${tally.concurrency429} of the 429 are the per-account limit on searches at once, on requests the leaky bucket let through`);
    }
    if (tally['5xx']) failures.push(`${tally['5xx']} × 5xx on ${kind}`);
    if (tally.other) failures.push(`${tally.other} answers on ${kind} with an unexpected status`);
    if (tally.noHit) failures.push(`${tally.noHit} search answers on ${kind} without the record searched for`);
  }
  if (report.errors) failures.push(`${report.errors} connection errors (${report.timeouts} timeouts)`);
}

/** Whole seconds (the first and the last left out) a sustained rate is judged on, at least. */
const MIN_SUSTAINED_SECONDS = 3;

/** Checks a scenario's report against its expectation; `bucket` is the public API's leaky bucket. */
export function judge(scenario: ScenarioName, report: DriverReport, bucket: { ratePerSecond: number; burst: number }): Verdict {
  const failures: string[] = [];
  const lines = Object.entries(report.kinds).map(([kind, tally]) => formatTally(kind, tally, report.seconds));
  common(report, failures, lines);
  const search = report.kinds.search;
  if (!search) return { lines, failures: [...failures, 'no search answers'] };
  if (scenario === 'api-keys') {
    const keys = report.acceptedPerIdentity.length;
    const target = keys * bucket.ratePerSecond;
    // Sustained: the median of the whole seconds, without the first and the last (ramp-up
    // and the end, where the staggered connections start and stop).
    // A short run (a smoke run of 2 s) has too few such seconds to tell a rate from the ramp:
    // nothing to judge.
    const middle = report.acceptedPerSecond.slice(1, -1);
    const sustained = middle.length >= MIN_SUSTAINED_SECONDS ? median(middle) : undefined;
    lines.push(
      sustained === undefined
        ? `  sustained: not measured (${middle.length} whole seconds between the first and the last, under ${MIN_SUSTAINED_SECONDS}) for ${keys} keys at ${bucket.ratePerSecond}/s each`
        : `  sustained ${sustained} accepted req/s (median second) for ${keys} keys at ${bucket.ratePerSecond}/s each: target ${target}/s`,
    );
    const least = Math.min(...report.acceptedPerIdentity);
    const most = Math.max(...report.acceptedPerIdentity);
    lines.push(`  per key: ${least}–${most} accepted in ${report.seconds.toFixed(1)} s (${(least / report.seconds).toFixed(1)}–${(most / report.seconds).toFixed(1)} req/s)`);
    const overSent = report.sendTimes.reduce((sum, times) => sum + refusedAtSendTimes(times, bucket), 0);
    lines.push(
      overSent
        ? `  the load tool itself sent ${overSent} requests above a key's bucket (by send time)`
        : `  by send time every key kept to its bucket (a bucket at the client would refuse none)`,
    );
    const bucket429 = search['429'] - search.concurrency429;
    if (bucket429) lines.push(`  ${bucket429} × 429 from the leaky bucket: decided later than sent (server latency p99 ${search.p99.toFixed(0)} ms)`);
    if (overSent) failures.push(`the load tool sent ${overSent} requests above a key's limit: the run shows nothing about 429s`);
    else if (search['429']) failures.push(`${search['429']} × 429 although no key passed its limit`);
    if (search['4xx']) failures.push(`${search['4xx']} × 4xx (not 429) on searches that should pass`);
    // The load tool on a shared machine may fall a little short; far short proves nothing.
    if (sustained !== undefined && sustained < 0.9 * target) failures.push(`sustained ${sustained} req/s, below 90% of ${target}/s`);
  } else if (scenario === 'dashboard') {
    for (const [kind, tally] of Object.entries(report.kinds)) {
      if (tally['429']) failures.push(`${tally['429']} × 429 on ${kind} although every sign-in came from its own address`);
      if (tally['4xx']) failures.push(`${tally['4xx']} × 4xx (not 429) on ${kind}`);
    }
    if (!report.kinds['sign-in']?.['2xx']) failures.push('no successful sign-in');
  } else {
    const expected = bucket.ratePerSecond * report.seconds + bucket.burst;
    const accepted = search['2xx'];
    const tolerance = bucket.ratePerSecond;
    lines.push(
      `  accepted ${accepted} vs bucket ${bucket.ratePerSecond}/s × ${report.seconds.toFixed(2)} s + burst ${bucket.burst} = ${expected.toFixed(0)} (± ${tolerance})`,
    );
    lines.push(`  accepted per second: ${report.acceptedPerSecond.join(' ')}`);
    if (Math.abs(accepted - expected) > tolerance) failures.push(`accepted ${accepted}, expected ${expected.toFixed(0)} ± ${tolerance}`);
    if (!search['429']) failures.push('no 429 although the key was far above its limit');
    if (search.noRetryAfter) failures.push(`${search.noRetryAfter} × 429 without Retry-After`);
    if (search['4xx']) failures.push(`${search['4xx']} × 4xx (not 429)`);
  }
  return { lines, failures };
}
