/**
 * The isolation scenario's jobs, reports and verdict (reliability test 14 measured from
 * outside): one client sends a one-hit exact `POST /v2/search` paced at a few a second,
 * first with the server otherwise idle, then while paying accounts run costly regex
 * searches back to back, one each in flight; the heavy searches' throughput is measured
 * alone and beside the paced client. isolation-client.ts runs both kinds of client.
 */

/** What a client child process (isolation-client.ts) is asked to run. */
export type IsolationJob =
  | {
      role: 'paced';
      url: string;
      header: string;
      key: string;
      body: string;
      /** Text every answer holds (the record searched for). */
      expect: string;
      hz: number;
      seconds: number;
    }
  | {
      role: 'heavy';
      url: string;
      header: string;
      /** One per account, each looping its own costly searches. */
      keys: string[];
      seconds: number;
      /** The first `heavyQuery` number: each run its own texts, none counted by an earlier run. */
      first: number;
    };

export interface IsolationReport {
  /** Round trips in ms of the answers that counted (paced: 200 with the record; heavy: 200). */
  latencies: number[];
  /** Answers other than those, by status (0: a transport error), and a sample of each. */
  failures: Record<string, number>;
  samples: string[];
  /** Seconds from the first request sent to the last answer. */
  seconds: number;
}

/** Target 1 of issue 44: the paced search's p99 under load ≤ max(2 × idle p99, idle p99 + 10 ms). */
export const ISOLATION_TARGET = { factor: 2, slackMs: 10 };

/** How many different texts `heavyQuery` makes (then it repeats them). */
export const HEAVY_TEXTS = 4800;

/**
 * A costly regex for the loadtest corpus's emails (`person<i>@example<k>.com`): no literal
 * of 3 bytes or more, so no trigram narrows it and every email term is scanned, and a
 * different text for each of 4,800 values of `n` (the engine remembers counts per query text).
 */
export function heavyQuery(n: number): string {
  return `email:/[a-z]+[0-9]{1,${3 + (n % 40)}}[0-9]@[a-z]{${5 + (Math.floor(n / 1600) % 3)},7}[0-9]{1,${2 + (Math.floor(n / 40) % 40)}}\\.[a-z]+/`;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]! : NaN;
}

export interface IsolationRun {
  idle: IsolationReport;
  loaded: IsolationReport;
  heavyAlone: IsolationReport;
  heavyBeside: IsolationReport;
  heavyClients: number;
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
const failed = (r: IsolationReport) => Object.values(r.failures).reduce((a, b) => a + b, 0);
const failureText = (r: IsolationReport) => (failed(r) ? ` (${Object.entries(r.failures).map(([s, n]) => `${n} × ${s === '0' ? 'transport error' : s}`).join(', ')})` : '');

/** The verdict lines: the paced search idle and under load against the bound, and the heavy searches' throughput alone and beside it. */
export function isolationVerdict(run: IsolationRun): { lines: string[]; met: boolean } {
  const idle99 = percentile(run.idle.latencies, 0.99);
  const loaded99 = percentile(run.loaded.latencies, 0.99);
  const bound = Math.max(ISOLATION_TARGET.factor * idle99, idle99 + ISOLATION_TARGET.slackMs);
  const heavyRate = (r: IsolationReport) => r.latencies.length / Math.max(r.seconds, 1e-9);
  const heavyFinished = run.heavyBeside.latencies.length > 0 && failed(run.heavyBeside) === 0;
  const met = loaded99 <= bound && failed(run.idle) === 0 && failed(run.loaded) === 0 && heavyFinished;
  const paced = (name: string, r: IsolationReport) =>
    `isolation ${name}: paced exact /v2/search p50 ${ms(percentile(r.latencies, 0.5))} p99 ${ms(percentile(r.latencies, 0.99))} max ${ms(Math.max(...r.latencies))} (${r.latencies.length} answers${failureText(r)})`;
  const heavy = (name: string, r: IsolationReport) =>
    `isolation heavy ${name}: ${run.heavyClients} accounts, ${r.latencies.length} regex searches in ${r.seconds.toFixed(1)} s (${heavyRate(r).toFixed(2)}/s), p50 ${ms(percentile(r.latencies, 0.5))} p99 ${ms(percentile(r.latencies, 0.99))}${failureText(r)}`;
  return {
    met,
    lines: [
      paced('idle', run.idle),
      paced(`under ${run.heavyClients} regex clients`, run.loaded),
      heavy('alone', run.heavyAlone),
      heavy('beside the paced client', run.heavyBeside),
      `isolation: p99 under load ${ms(loaded99)} = ${(loaded99 / idle99).toFixed(2)}× idle (target ≤ max(${ISOLATION_TARGET.factor} × ${ms(idle99)}, ${ms(idle99)} + ${ISOLATION_TARGET.slackMs} ms) = ${ms(bound)}; heavy searches ${heavyFinished ? 'finished' : 'did not all finish'}): ${met ? 'met' : 'missed'}`,
    ],
  };
}
