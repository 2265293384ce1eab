// The load scenarios' checks: the client-side bucket agrees with the server's limiter, and
// the verdicts fail where they must.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMemoryRateLimiter } from '../server/src/infra/rate-limiter';
import { createQueueSystem, NAMESPACE_PATTERN } from '../server/src/infra/queues';
import { floorVerdict, judge, refusedAtSendTimes, runNamespace, sequentialVerdict, type DriverReport, type SequentialPhase, type Tally } from './scenarios';

const bucket = { ratePerSecond: 10, burst: 10 };

test('refusedAtSendTimes refuses what the server limiter refuses at the same times', async () => {
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let run = 0; run < 50; run++) {
    const times: number[] = [];
    let t = 1000;
    for (let i = 0; i < 200; i++) times.push((t += Math.floor(random() * (run % 2 ? 150 : 60))));
    let now = 0;
    const limiter = createMemoryRateLimiter(() => now);
    let refused = 0;
    for (const at of times) {
      now = at;
      if (!(await limiter.take('k', bucket)).allowed) refused++;
    }
    assert.equal(refusedAtSendTimes(times, bucket), refused, `run ${run}`);
  }
  // Evenly spaced at the rate: none; a burst of burst + 1 at once: one.
  assert.equal(refusedAtSendTimes(Array.from({ length: 100 }, (_, i) => i * 100), bucket), 0);
  assert.equal(refusedAtSendTimes(new Array<number>(11).fill(5), bucket), 1);
});

const tally = (over: Partial<Tally>): Tally => ({ requests: 0, '2xx': 0, noHit: 0, '429': 0, concurrency429: 0, '4xx': 0, '5xx': 0, other: 0, noRetryAfter: 0, p50: 1, p99: 2, max: 3, ...over });
const report = (over: Partial<DriverReport>): DriverReport => ({
  seconds: 10,
  kinds: {},
  acceptedPerIdentity: [],
  acceptedPerSecond: [],
  sendTimes: [],
  errors: 0,
  timeouts: 0,
  samples: [],
  ...over,
});

test('api-keys: passes at the limit, fails on a 429, a 5xx or a short rate', () => {
  const even = Array.from({ length: 100 }, (_, i) => i * 100);
  const ok = report({ kinds: { search: tally({ requests: 200, '2xx': 200 }) }, acceptedPerIdentity: [100, 100], acceptedPerSecond: new Array<number>(10).fill(20), sendTimes: [even, even] });
  assert.deepEqual(judge('api-keys', ok, bucket).failures, []);
  const limited = { ...ok, kinds: { search: tally({ requests: 200, '2xx': 199, '429': 1 }) } };
  assert.match(judge('api-keys', limited, bucket).failures.join(), /429 although no key passed/);
  const failing = { ...ok, kinds: { search: tally({ requests: 200, '2xx': 199, '5xx': 1 }) } };
  assert.match(judge('api-keys', failing, bucket).failures.join(), /5xx/);
  const slow = { ...ok, acceptedPerSecond: new Array<number>(10).fill(15) };
  assert.match(judge('api-keys', slow, bucket).failures.join(), /below 90%/);
  const empty = { ...ok, kinds: { search: tally({ requests: 200, '2xx': 200, noHit: 3 }) } };
  assert.match(judge('api-keys', empty, bucket).failures.join(), /3 search answers on search without the record/);
  const pushy = { ...ok, sendTimes: [even, new Array<number>(11).fill(0)] };
  assert.match(judge('api-keys', pushy, bucket).failures.join(), /load tool sent 1/);
  // A smoke run (`--seconds 2`): too few whole seconds to judge a sustained rate by.
  const short = { ...ok, acceptedPerSecond: [20, 9, 20, 3] };
  assert.deepEqual(judge('api-keys', short, bucket).failures, []);
  assert.match(judge('api-keys', short, bucket).lines.join('\n'), /sustained: not measured \(2 whole seconds/);
});

test('one-key: the accepted count must be the bucket’s, and every 429 carries Retry-After', () => {
  const at = (accepted: number, over: Partial<Tally> = {}) => report({ seconds: 15, kinds: { search: tally({ requests: 5000, '2xx': accepted, '429': 5000 - accepted, ...over }) } });
  assert.deepEqual(judge('one-key', at(160), bucket).failures, []);
  assert.match(judge('one-key', at(145), bucket).failures.join(), /expected 160 ± 10/);
  assert.match(judge('one-key', at(171), bucket).failures.join(), /expected 160 ± 10/);
  assert.match(judge('one-key', at(160, { noRetryAfter: 2 }), bucket).failures.join(), /without Retry-After/);
});

test('floor comparison: both targets judged on the medians of the rounds, with every figure printed', () => {
  const round = (searchRps: number, searchP50: number) => ({
    floorRps: 10_000,
    searchRps,
    floorLatency: { p50: 0.05, p99: 0.2 },
    searchLatency: { p50: searchP50, p99: 1.5 },
  });
  const met = floorVerdict([round(7000, 0.9), round(8500, 0.3), round(9000, 0.25)]);
  assert.equal(met.ratioMet, true);
  assert.equal(met.latencyMet, true);
  assert.match(met.lines.join('\n'), /round 1: floor +10000 req\/s, search +7000 req\/s, ratio 70\.0%/);
  assert.match(met.lines.join('\n'), /at 85\.0% of the floor \(median of 3 rounds; target ≥ 80%\): met/);
  assert.match(met.lines.join('\n'), /adds 0\.25 ms at p50 \(1\.30 ms at p99\).*: met/);
  // Two rounds: the mean of both, not the better one.
  assert.match(floorVerdict([round(7000, 0.3), round(9000, 0.3)]).lines.join('\n'), /at 80\.0% of the floor \(median of 2 rounds/);
  const missed = floorVerdict([round(7900, 0.56)]);
  assert.equal(missed.ratioMet, false);
  assert.equal(missed.latencyMet, false);
  assert.match(missed.lines.join('\n'), /79\.0% of the floor \(one round; target ≥ 80%\): missed/);
  assert.match(missed.lines.join('\n'), /adds 0\.51 ms at p50.*: missed/);
  assert.doesNotMatch(missed.lines.join('\n'), /CPU per request/);
  // CPU per request, when measured: per round and the medians.
  const cpu = floorVerdict([
    { ...round(5000, 0.3), floorCpuUs: 20, searchCpuUs: 50 },
    { ...round(5000, 0.3), floorCpuUs: 24, searchCpuUs: 40 },
    { ...round(5000, 0.3), floorCpuUs: 22, searchCpuUs: 44 },
  ]).lines.join('\n');
  assert.match(cpu, /round 1: .*server CPU per request: floor 20\.0 µs, search 50\.0 µs \(floor\/search 40\.0%\)/);
  assert.match(cpu, /server CPU per request \(median of 3 rounds\): floor 22\.0 µs, \/v2\/search 44\.0 µs; the floor's is 50\.0% of the search's/);
});

test('a run namespace is one both queue backends take (loadtest-<pid> would stop the embedded default)', () => {
  for (const pid of [1, 15727, 4_194_304]) assert.match(runNamespace(pid), NAMESPACE_PATTERN);
  // Refused on either backend, before any connection: a name that works with Redis must not
  // wait for the embedded default to fail.
  for (const redisUrl of [undefined, 'redis://127.0.0.1:1']) {
    assert.throws(
      () => createQueueSystem({ connectionString: 'postgres://127.0.0.1:1/none', redisUrl, namespace: 'loadtest-15727' }),
      /queue namespace "loadtest-15727" must be/,
    );
  }
});

test('sequential client: a paced phase is judged on its cold halves too, not only on p50s that may fall on either side of them', () => {
  const phase = (over: Partial<SequentialPhase>): SequentialPhase => ({
    pairs: 100,
    paceHz: 0,
    floorP50: 0.2,
    searchP50: 0.3,
    floorP99: 1,
    searchP99: 1,
    addedP50: 0.1,
    failures: 0,
    firstFloorP50: 0.2,
    firstSearchP50: 0.3,
    ...over,
  });
  // Back to back: the p50s alone.
  assert.equal(sequentialVerdict({ backToBack: phase({ firstSearchP50: 0.9 }), paced: phase({ paceHz: 10 }) }).met, true);
  // Paced: a p50 within the target but the first-after-the-pause search 0.29 ms over its bare route.
  const paced = sequentialVerdict({ backToBack: phase({}), paced: phase({ paceHz: 10, addedP50: 0.12, firstFloorP50: 0.64, firstSearchP50: 0.93 }) });
  assert.equal(paced.met, false);
  assert.match(paced.lines[1]!, /added p50 0\.120 ms, first after the pause 0\.290 ms .*: missed$/);
  // Both within the target: met.
  assert.equal(sequentialVerdict({ backToBack: phase({}), paced: phase({ paceHz: 10, firstFloorP50: 0.64, firstSearchP50: 0.74 }) }).met, true);
  // A failed answer fails the phase whatever its times.
  assert.equal(sequentialVerdict({ backToBack: phase({ failures: 1 }), paced: phase({ paceHz: 10 }) }).met, false);
});
