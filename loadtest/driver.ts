/**
 * The load generator: runs one scenario (scenarios.ts) with autocannon and reports what it
 * saw. It runs in a child process of http-bench.ts (forked with an IPC channel: the job
 * comes in as the first message, the report goes back as one message), so the load tool
 * and the server under test do not share an event loop.
 *
 * Every virtual client is one autocannon connection with its own requests (setupClient):
 * its own key or account and its own client address in X-Forwarded-For (the server trusts
 * it from 127.0.0.1 only; http-bench.ts sets TRUSTED_PROXIES). Latencies are autocannon's
 * per response; statuses and Retry-After are read in each request's onResponse.
 */
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { packLogin, packSearch } from '../server/src/common/obfuscation';
import type { DriverJob, DriverReport, Tally } from './scenarios';

type Request = autocannon.Request;
type Headers = Record<string, string | string[] | undefined>;

/** What a client's last answer was, read by the instance's `response` event that follows it. */
interface ClientState {
  kind: string;
  identity: number;
  status: number;
  retryAfter: string | undefined;
  /** A 429 from the per-account limit on searches at once, not from a leaky bucket. */
  concurrency: boolean;
  /** A 2xx search answer without the record searched for. */
  noHit: boolean;
}

class Recorder {
  readonly latencies = new Map<string, number[]>();
  readonly tallies = new Map<string, Omit<Tally, 'p50' | 'p99' | 'max'>>();
  readonly accepted: number[];
  readonly samples = new Map<number, string>();
  errors = 0;
  timeouts = 0;
  /** When the first and the last answered request were sent (performance.now()). */
  firstSentAt = Infinity;
  lastSentAt = -Infinity;
  /** Every answered request: when it was sent (performance.now()) and whether it got a 2xx. */
  readonly sent: { at: number; ok: boolean }[] = [];
  /** Send times (ms from the first) of each identity's search requests. */
  readonly sentByIdentity: number[][];

  constructor(identities: number) {
    this.accepted = new Array<number>(identities).fill(0);
    this.sentByIdentity = Array.from({ length: identities }, () => []);
  }

  record(state: ClientState, latencyMs: number, body?: string) {
    let tally = this.tallies.get(state.kind);
    if (!tally) {
      tally = { requests: 0, '2xx': 0, noHit: 0, '429': 0, concurrency429: 0, '4xx': 0, '5xx': 0, other: 0, noRetryAfter: 0 };
      this.tallies.set(state.kind, tally);
      this.latencies.set(state.kind, []);
    }
    tally.requests++;
    const sentAt = performance.now() - latencyMs;
    this.firstSentAt = Math.min(this.firstSentAt, sentAt);
    this.lastSentAt = Math.max(this.lastSentAt, sentAt);
    this.sent.push({ at: sentAt, ok: state.status >= 200 && state.status < 300 });
    if (state.kind === 'search') this.sentByIdentity[state.identity]!.push(sentAt);
    this.latencies.get(state.kind)!.push(latencyMs);
    const status = state.status;
    if (status >= 200 && status < 300) {
      tally['2xx']++;
      if (state.noHit) tally.noHit++;
      if (state.kind === 'search') this.accepted[state.identity]!++;
    } else if (status === 429) {
      tally['429']++;
      if (state.concurrency) tally.concurrency429++;
      if (!/^[1-9]\d*$/.test(state.retryAfter ?? '')) tally.noRetryAfter++;
    } else if (status >= 400 && status < 500) tally['4xx']++;
    else if (status >= 500 && status < 600) tally['5xx']++;
    else tally.other++;
    if ((status < 200 || status >= 300) && status !== 429 && !this.samples.has(status) && body !== undefined) {
      this.samples.set(status, `${state.kind} ${status}: ${body.slice(0, 200)}`);
    }
  }

  /**
   * Seconds from the first to the last request sent (of those answered): the span over
   * which the server decided, as near as the client can tell (an answer may come late
   * when the machine is loaded; the request was decided when it arrived).
   */
  get window(): number {
    return Math.max(0, this.lastSentAt - this.firstSentAt) / 1000;
  }

  /** 2xx answers per whole second of the run, by send time. */
  acceptedPerSecond(): number[] {
    const seconds = new Array<number>(Math.floor(this.window) + 1).fill(0);
    for (const { at, ok } of this.sent) if (ok) seconds[Math.floor((at - this.firstSentAt) / 1000)]!++;
    return seconds;
  }

  report(seconds = this.window): DriverReport {
    const kinds: Record<string, Tally> = {};
    for (const [kind, tally] of this.tallies) {
      const sorted = Float64Array.from(this.latencies.get(kind)!).sort();
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
      kinds[kind] = { ...tally, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 };
    }
    const sendTimes = this.sentByIdentity.map((times) => times.sort((a, b) => a - b).map((t) => Math.round((t - this.firstSentAt) * 10) / 10));
    return { seconds, kinds, acceptedPerIdentity: this.accepted, acceptedPerSecond: this.acceptedPerSecond(), sendTimes, errors: this.errors, timeouts: this.timeouts, samples: [...this.samples.values()] };
  }
}

function header(headers: Headers | undefined, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers ?? {})) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** A virtual client's address, private (RFC 1918): 10.<scenario>.<hi>.<lo>. */
function address(block: number, n: number): string {
  return `10.${block}.${(n >> 8) & 255}.${n & 255}`;
}

/** Runs autocannon instances and records every answer; resolves when all are done. */
async function run(
  recorder: Recorder,
  lanes: { options: autocannon.Options; startAfterMs: number }[],
  setup: (client: autocannon.Client, state: ClientState, lane: number, index: number) => void,
): Promise<void> {
  const states = new WeakMap<object, ClientState>();
  const runs = lanes.map(
    ({ options, startAfterMs }, lane) =>
      new Promise<void>((resolve, reject) => {
        setTimeout(() => {
          let index = 0;
          const instance = autocannon(
            {
              ...options,
              setupClient(client) {
                const state: ClientState = { kind: 'search', identity: 0, status: 0, retryAfter: undefined, concurrency: false, noHit: false };
                states.set(client, state);
                setup(client, state, lane, index++);
              },
            },
            (error, result) => {
              if (error) return reject(error);
              recorder.errors += result.errors;
              recorder.timeouts += result.timeouts;
              resolve();
            },
          );
          instance.on('response', (client, _status, _bytes, latencyMs) => recorder.record(states.get(client)!, latencyMs, lastBodies.get(client)));
        }, startAfterMs);
      }),
  );
  await Promise.all(runs);
}

/** The body of each client's last unexpected answer (kept only for error samples). */
const lastBodies = new WeakMap<object, string>();

/** A request whose answer is noted in the client's state (status, Retry-After). */
function noted(
  state: ClientState,
  client: autocannon.Client,
  request: Request,
  kind: string,
  identity: number,
  also?: (status: number, body: string, context: { token?: string }) => void,
): Request {
  return {
    ...request,
    onResponse(status, body, context, headers) {
      state.kind = kind;
      state.identity = identity;
      state.status = status;
      state.retryAfter = header(headers as Headers, 'retry-after');
      // The search concurrency refusal names itself ("Too many searches at once: …").
      state.concurrency = status === 429 && /at once/i.test(body);
      // Every search asks for one record that exists: an answer without it is no answer.
      state.noHit = kind === 'search' && status === 200 && !/"total(_results)?":[1-9]/.test(body);
      if (status >= 300 && status !== 429) lastBodies.set(client, body);
      else lastBodies.delete(client);
      also?.(status, body, context);
    },
  };
}

async function apiKeys(job: Extract<DriverJob, { scenario: 'api-keys' }>): Promise<DriverReport> {
  // autocannon paces a connection by sending its quota at each one-second tick; one
  // connection at `rate` per second would send bursts of `rate` back to back, exactly at
  // the bucket's edge. So each key gets `rate` connections at 1 request per second each
  // ("lanes"), started 1/rate seconds apart: its requests arrive evenly spaced, as a
  // well-behaved client at its limit sends them.
  const recorder = new Recorder(job.keys.length);
  const lanes = Array.from({ length: job.ratePerKey }, (_, lane) => ({
    startAfterMs: (lane * 1000) / job.ratePerKey,
    options: { url: job.url, connections: job.keys.length, connectionRate: 1, duration: job.seconds, method: 'POST' as const },
  }));
  await run(recorder, lanes, (client, state, _lane, index) => {
    const headers = { 'content-type': 'application/json', [job.header]: job.keys[index]!, 'x-forwarded-for': address(1, index) };
    client.setRequests([noted(state, client, { method: 'POST', path: '/v2/search', headers, body: job.body }, 'search', index)]);
  });
  return recorder.report();
}

async function dashboard(job: Extract<DriverJob, { scenario: 'dashboard' }>): Promise<DriverReport> {
  const recorder = new Recorder(job.users.length);
  let signIns = 0;
  let searches = 0;
  await run(
    recorder,
    [{ startAfterMs: 0, options: { url: job.url, connections: job.users.length, duration: job.seconds, method: 'POST' as const } }],
    (client, state, _lane, index) => {
      const user = job.users[index]!;
      // Per client: sign in, then search; the token lives in the request context, which
      // autocannon resets when the sequence starts over (with the next sign-in).
      const signIn = noted(
        state,
        client,
        {
          method: 'POST',
          path: '/authentication/login',
          setupRequest(request, context) {
            // A new sign-in is a new visitor: its own address, so the per-address sign-in
            // throttle (a burst of 20, then one per 3 s) is never what this measures.
            const headers = { 'content-type': 'application/json', 'x-forwarded-for': address(2, signIns++ % 65_536) };
            (context as { token?: string }).token = undefined;
            return { ...request, headers, body: JSON.stringify(packLogin({ email: user.email, password: user.password, remember: false })) };
          },
        },
        'sign-in',
        index,
        (status, body, context) => {
          if (status === 200) context.token = (JSON.parse(body) as { auth_token: string }).auth_token;
        },
      );
      const search = noted(
        state,
        client,
        {
          method: 'POST',
          path: '/search',
          setupRequest(request, context) {
            const token = (context as { token?: string }).token;
            // Without a token (the sign-in failed) start over with a sign-in.
            if (!token) return undefined as unknown as Request;
            const email = job.emails[searches++ % job.emails.length]!;
            const body = JSON.stringify(packSearch({ query: email, type: 'email', page: 1, regex: false, wildcard: false, deduplicate: true }));
            return { ...request, headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body };
          },
        },
        'search',
        index,
      );
      client.setRequests([signIn, ...Array.from({ length: job.searchesPerSignIn }, () => search)]);
    },
  );
  return recorder.report();
}

async function oneKey(job: Extract<DriverJob, { scenario: 'one-key' }>): Promise<DriverReport> {
  const recorder = new Recorder(1);
  await run(
    recorder,
    [{ startAfterMs: 0, options: { url: job.url, connections: job.connections, duration: job.seconds, method: 'POST' as const } }],
    (client, state, _lane, index) => {
      // Every client from its own address: the key's bucket is what refuses, not an address's.
      const headers = { 'content-type': 'application/json', [job.header]: job.key, 'x-forwarded-for': address(3, index) };
      client.setRequests([noted(state, client, { method: 'POST', path: '/v2/search', headers, body: job.body }, 'search', 0)]);
    },
  );
  return recorder.report();
}

async function throughput(job: Extract<DriverJob, { scenario: 'throughput' }>): Promise<DriverReport> {
  const recorder = new Recorder(Math.max(1, job.keys.length));
  await run(
    recorder,
    [{ startAfterMs: 0, options: { url: job.url, connections: job.connections, duration: job.seconds, method: 'POST' as const } }],
    (client, state, _lane, index) => {
      // Each connection is a client of its own (its own address, as in the other scenarios):
      // one address for all would meet that address's API_RATE_PER_SECOND bucket, which a
      // fast server passes within a round (then 429s, and the run fails).
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-forwarded-for': address(4, index) };
      const identity = job.keys.length ? index % job.keys.length : 0;
      if (job.keys.length) headers[job.header] = job.keys[identity]!;
      client.setRequests([noted(state, client, { method: 'POST', path: job.path, headers, body: job.body }, 'search', identity)]);
    },
  );
  return recorder.report();
}

export async function drive(job: DriverJob): Promise<DriverReport> {
  switch (job.scenario) {
    case 'api-keys':
      return apiKeys(job);
    case 'dashboard':
      return dashboard(job);
    case 'one-key':
      return oneKey(job);
    case 'throughput':
      return throughput(job);
  }
}

if (process.send) {
  process.once('message', (job: DriverJob) => {
    drive(job).then(
      (report) => process.send!(report, () => process.exit(0)),
      (error: unknown) => {
        process.stderr.write(`driver: ${error instanceof Error ? error.stack : String(error)}\n`);
        process.exit(1);
      },
    );
  });
}
