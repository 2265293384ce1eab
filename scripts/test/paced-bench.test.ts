// The bench's paced side-by-side verdicts (scripts/lib/paced-bench.ts, `npm run bench --
// --paced`): the small answers judged against PostgreSQL alone, every class against both
// peers, a failed answer failing both, and "not run" without --paced.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pacedTargetRows, type PacedResult, type PacedRow } from '../lib/paced-bench';

const row = (cls: string, scan: boolean, pgRatio: number, duckRatio: number, failures = 0): PacedRow => ({
  cls,
  scan,
  total: 1,
  livez: 1,
  search: 1.5,
  searchP90: 2,
  added: 0.5,
  pg: 0.5 * pgRatio,
  pgRatio,
  duck: 0.5 * duckRatio,
  duckRatio,
  failures,
});
const result = (rows: PacedRow[]): PacedResult => ({ rows, lines: [], paceMs: 120 });
const verdicts = (rows: string[]) => rows.map((r) => r.split('|').at(-2)!.trim());

test('small answers at 1× PostgreSQL or more, every class ahead of both: met, with the worst ratio and its class named', () => {
  const rows = pacedTargetRows(result([row('exact email', false, 1.8, 20), row('exact 40-hex hash', false, 1.24, 70), row('regex', true, 12, 3.65)]));
  assert.deepEqual(verdicts(rows), ['met', 'met']);
  assert.match(rows[0]!, /paced at 120 ms \| PostgreSQL \/ added worst 1\.24× \(exact 40-hex hash\) \| met \|$/);
  assert.match(rows[1]!, /PostgreSQL \/ added worst 1\.24× \(exact 40-hex hash\), DuckDB \/ added worst 3\.65× \(regex\)/);
});

test('a scan behind PostgreSQL misses only the every-class target; a small answer behind it misses both', () => {
  assert.deepEqual(verdicts(pacedTargetRows(result([row('exact email', false, 1.5, 20), row('email:*@domain (largest)', true, 0.56, 1.85)]))), ['met', 'missed']);
  assert.deepEqual(verdicts(pacedTargetRows(result([row('exact email', false, 0.9, 20), row('regex', true, 5, 5)]))), ['missed', 'missed']);
  assert.deepEqual(verdicts(pacedTargetRows(result([row('exact email', false, 2, 0.8)]))), ['met', 'missed']);
});

test('a failed answer misses both, however fast; no --paced: not run', () => {
  const failed = pacedTargetRows(result([row('exact email', false, 3, 30, 2)]));
  assert.deepEqual(verdicts(failed), ['missed', 'missed']);
  assert.match(failed[0]!, /; 2 failed answers \| missed \|$/);
  const notRun = pacedTargetRows(undefined);
  assert.deepEqual(verdicts(notRun), ['not measured', 'not measured']);
  assert.match(notRun[0]!, /not run \(add `--paced`\)/);
});
