// The isolation scenario's verdict (isolation.ts): the paced search's p99 under load against
// max(2 × idle p99, idle p99 + 10 ms), and the heavy searches finishing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HEAVY_TEXTS, heavyQuery, isolationVerdict, percentile, type IsolationReport } from './isolation';

const report = (latencies: number[], failures: Record<string, number> = {}, seconds = 40): IsolationReport => ({ latencies, failures, samples: [], seconds });
/** 200 answers: 197 at `base` ms, three at `tail` (the p99 of 200 is the 198th, the third largest). */
const paced = (base: number, tail: number) => report([...Array.from({ length: 197 }, () => base), tail, tail, tail]);
const heavy = report(Array.from({ length: 1200 }, () => 250));

test('p99 is the value at 99% of the answers, rounded up', () => {
  assert.equal(percentile([...Array.from({ length: 197 }, () => 1), 9, 7, 8], 0.99), 7);
  assert.equal(percentile([...Array.from({ length: 198 }, () => 1), 7, 9], 0.99), 1);
  assert.equal(percentile([3, 1, 2], 0.5), 2);
  assert.ok(Number.isNaN(percentile([], 0.99)));
});

test('met within 2 × idle p99, or within idle p99 + 10 ms for a fast idle; missed beyond both', () => {
  const within2x = isolationVerdict({ idle: paced(1, 20), loaded: paced(1, 39), heavyAlone: heavy, heavyBeside: heavy, heavyClients: 8 });
  assert.equal(within2x.met, true);
  assert.match(within2x.lines.at(-1)!, /p99 under load 39\.0 ms = 1\.95× idle \(target ≤ max\(2 × 20\.0 ms, 20\.0 ms \+ 10 ms\) = 40\.0 ms; heavy searches finished\): met/);
  assert.equal(isolationVerdict({ idle: paced(1, 4), loaded: paced(1, 13.9), heavyAlone: heavy, heavyBeside: heavy, heavyClients: 8 }).met, true);
  const missed = isolationVerdict({ idle: paced(1, 4), loaded: paced(1, 14.5), heavyAlone: heavy, heavyBeside: heavy, heavyClients: 8 });
  assert.equal(missed.met, false);
  assert.match(missed.lines.at(-1)!, /= 14\.0 ms; .*: missed$/);
  assert.match(missed.lines[2]!, /isolation heavy alone: 8 accounts, 1200 regex searches in 40\.0 s \(30\.00\/s\), p50 250\.0 ms/);
});

test('missed when a paced answer failed or a heavy search did not finish, however fast the rest', () => {
  const failedPaced = isolationVerdict({ idle: paced(1, 2), loaded: report(paced(1, 2).latencies, { 429: 1 }), heavyAlone: heavy, heavyBeside: heavy, heavyClients: 8 });
  assert.equal(failedPaced.met, false);
  assert.match(failedPaced.lines[1]!, /\(200 answers \(1 × 429\)\)/);
  const timedOut = isolationVerdict({ idle: paced(1, 2), loaded: paced(1, 2), heavyAlone: heavy, heavyBeside: report(heavy.latencies, { 408: 3 }), heavyClients: 8 });
  assert.equal(timedOut.met, false);
  assert.match(timedOut.lines.at(-1)!, /heavy searches did not all finish\): missed/);
  assert.equal(isolationVerdict({ idle: paced(1, 2), loaded: paced(1, 2), heavyAlone: heavy, heavyBeside: report([]), heavyClients: 8 }).met, false);
});

test('the costly regexes: a different text for each of their numbers, and no literal of 3 bytes a trigram could narrow to', () => {
  const texts = new Set(Array.from({ length: HEAVY_TEXTS }, (_, n) => heavyQuery(n)));
  assert.equal(texts.size, HEAVY_TEXTS);
  for (const text of [heavyQuery(0), heavyQuery(HEAVY_TEXTS - 1)]) {
    const pattern = text.slice('email:/'.length, -1);
    // Every person<i>@example<k>.com email matches, so the search counts every record.
    assert.match('person4242@example42.com', new RegExp(pattern));
    assert.doesNotMatch(pattern.replace(/\\./g, ''), /[a-z@.]{3}/);
  }
});
