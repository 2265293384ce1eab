/**
 * Data well operations: `well:list`, `well:update` and `well:delete`
 * through the real operator CLI (scripts/admin.ts, a process of its own) against two real
 * server processes sharing one database and one index directory, as in scale-out.test.ts.
 *
 * Three wells are ingested and merged into one segment (one part: their records side by
 * side), one record present in two of them. A takedown must be gone from both instances
 * within 5 s on every read path (dashboard search and its counts, which the dashboard's
 * export is built from, /v2/search, both password checks, monitoring's matching, the
 * catalogue), the other wells' records staying (the shared record found in the live well);
 * an update or rename is seen on both; `--purge` shrinks the index.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Kysely, PostgresDialect } from 'kysely';
import { loadConfig } from '../../src/config';
import type { Database } from '../../src/db/schema';
import { createPool } from '../../src/infra/database';
import { hashPassword } from '../../src/auth/passwords';
import { applyGrant, insertUser } from '../../src/users/user-repository';
import { createUserService } from '../../src/users/user-service';
import { packLogin, packSearch } from '../../src/common/obfuscation';
import { openEngine } from '../../../engine/index';
import { TEST_PASSWORD, createTestDatabase, startServerProcess, type ServerProcess } from '../support/harness';
import { call, freshIp } from '../support/helpers';
import { cliArgs, type CliCommand } from '../../../scripts/lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const VISIBLE_WITHIN_MS = 5000;

const GONE = 'Takedown Well';
const KEPT = 'Kept Well';
const THIRD = 'Third Well';
const SHARED = { email: 'shared@wells.example', password: 'shared-pass-1' };
const GONE_RECORDS = [
  ...Array.from({ length: 12 }, (_, i) => ({ email: `gone${i}@wells.example`, password: `gone-pass-${i}`, url: `https://gone${i}.takedown.example/` })),
  SHARED,
];
const KEPT_RECORDS = [...Array.from({ length: 8 }, (_, i) => ({ email: `kept${i}@wells.example`, password: `kept-pass-${i}` })), SHARED];
const THIRD_RECORDS = Array.from({ length: 200 }, (_, i) => ({ email: `third${i}@wells.example`, password: `third-pass-${i}`, name: `Third Person ${i}` }));

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

describe('data well operations against two running servers', { timeout: 300_000 }, () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  let db: Kysely<Database>;
  let env: Record<string, string>;
  let scratch: string;
  let indexDir: string;
  let instances: ServerProcess[];
  let apiKey: string;
  let apiKeyHeader: string;
  let tokens: string[];

  function run(command: CliCommand, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
    const child = spawn(process.execPath, cliArgs(command, args), {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'test', DATABASE_URL: env.DATABASE_URL!, DATA_DIR: scratch, INDEX_DIR: indexDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err })));
  }

  async function ingest(well: string, records: object[], extra: string[] = []): Promise<void> {
    const file = path.join(scratch, `${well.replace(/\W/g, '-')}.jsonl`);
    fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const r = await run('ingest', ['--well', well, '--index-dir', indexDir, '--max-segments', '0', ...extra, file]);
    assert.equal(r.code, 0, `ingest of ${well}: ${r.err.slice(-2000)}`);
  }

  async function admin(...args: string[]) {
    const r = await run('admin', [...args, '--operator', 'wells-test']);
    assert.equal(r.code, 0, `admin ${args[0]}: ${r.err.slice(-2000)}`);
    return r.out;
  }

  const dashboard = (i: number, query: string) =>
    call(instances[i]!.url, 'POST', '/search', { token: tokens[i], body: packSearch({ query, type: 'email', page: 1, regex: false, wildcard: query.includes('*'), deduplicate: true }) });
  const v2 = (i: number, route: string, body: object) => call(instances[i]!.url, 'POST', `/v2/${route}`, { body, headers: { [apiKeyHeader]: apiKey }, ip: freshIp() });
  const catalogue = async (i: number) => (await call(instances[i]!.url, 'GET', '/datawells?count=50', { ip: freshIp() })).body.data_wells as { name: string; description: string; date: string | null; is_sensitive: boolean }[];

  /**
   * Polls `check` on both instances at once until it holds on each; the delays from `since`
   * (a Date.now() or a file's mtimeMs). `check` answers a verdict and what it saw.
   */
  async function onBoth(check: (i: number) => Promise<[boolean, unknown]>, since: number): Promise<number[]> {
    return Promise.all(
      instances.map(async (_, i) => {
        for (;;) {
          const [ok, seen] = await check(i);
          if (ok) return Math.max(0, Date.now() - since);
          if (Date.now() - since > VISIBLE_WITHIN_MS * 3) throw new Error(`not seen on instance ${i} within ${VISIBLE_WITHIN_MS * 3} ms: ${JSON.stringify(seen)}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      }),
    );
  }

  /** When the index's well edits were last written (the takedown's or rename's own moment, as the MANIFEST's is a publish's). */
  const editedAt = () => fs.statSync(path.join(indexDir, 'wells.log')).mtimeMs;
  const totalIs = (query: string, want: number) => async (i: number): Promise<[boolean, unknown]> => {
    const r = query.includes('*') ? await v2(i, 'search', { query: `email:${query}`, wildcard: true }) : await dashboard(i, query);
    const total = r.body.total_results ?? r.body.total;
    return [r.status === 200 && total === want, { status: r.status, total, error: r.body.error }];
  };

  before(async () => {
    const database = await createTestDatabase();
    cleanups.push(database.drop);
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-test-wells-'));
    cleanups.push(async () => fs.rmSync(scratch, { recursive: true, force: true }));
    indexDir = path.join(scratch, 'index');
    env = { NODE_ENV: 'test', LOG_LEVEL: 'warn', DATABASE_URL: database.url, INDEX_DIR: indexDir, TRUSTED_PROXIES: '127.0.0.1', SEARCH_DAILY_LIMIT: '100000', DB_POOL_SIZE: '4' };
    apiKeyHeader = loadConfig(env).apiKeyHeader;
    await ingest(GONE, GONE_RECORDS, ['--description', 'A fake breach', '--date', '2021-03-04', '--sensitive']);
    await ingest(KEPT, KEPT_RECORDS, ['--description', 'The real one']);
    await ingest(THIRD, THIRD_RECORDS);
    const merged = await run('ingest', ['--merge', '--index-dir', indexDir]);
    assert.equal(merged.code, 0, merged.err);
    assert.match(merged.out, /merged 3 segments/);
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: createPool(database.url, { max: 2 }) }) });
    cleanups.push(() => db.destroy());
    const user = (await insertUser(db, { email: `wells-${randomBytes(4).toString('hex')}@example.com`, passwordHash: await hashPassword(TEST_PASSWORD), verified: true }))!;
    await applyGrant(db, user, { searchDays: 30, searchCredits: 1000 });
    apiKey = await createUserService(db).regenerateApiKey(user);
    const email = (await db.selectFrom('users').select('email').where('id', '=', user).executeTakeFirstOrThrow()).email;
    const dataDirs = ['a', 'b'].map((name) => path.join(scratch, `data-${name}`));
    for (const dir of dataDirs) fs.mkdirSync(dir);
    const started = await Promise.allSettled(dataDirs.map((dir) => startServerProcess({ ...env, DATA_DIR: dir }, 120_000)));
    for (const result of started) if (result.status === 'fulfilled') cleanups.push(() => result.value.stop());
    for (const result of started) if (result.status === 'rejected') throw result.reason;
    instances = started.map((result) => (result as PromiseFulfilledResult<ServerProcess>).value);
    tokens = await Promise.all(
      instances.map(async (target) => {
        const reply = await call(target.url, 'POST', '/authentication/login', { body: packLogin({ email, password: TEST_PASSWORD, remember: false }), ip: freshIp() });
        assert.equal(reply.status, 200);
        return reply.body.auth_token as string;
      }),
    );
  });

  after(async () => {
    const failures: unknown[] = [];
    while (cleanups.length) await cleanups.pop()!().catch((error: unknown) => failures.push(error));
    if (failures.length) throw failures[0];
  });

  test('well:list shows every well with its records, metadata and index bytes', async () => {
    const listed = JSON.parse(await admin('well:list', '--json')) as { name: string; records: number; date: string | null; description: string; sensitive: boolean; ingested_at: string; index_bytes: number }[];
    assert.deepEqual(
      listed.map((w) => [w.name, w.records, w.date, w.description, w.sensitive]),
      [
        [KEPT, KEPT_RECORDS.length, null, 'The real one', false],
        [GONE, GONE_RECORDS.length, '2021-03-04', 'A fake breach', true],
        [THIRD, THIRD_RECORDS.length, null, '', false],
      ],
    );
    for (const w of listed) {
      assert.ok(w.index_bytes > 0, `${w.name} has index bytes`);
      assert.ok(!Number.isNaN(Date.parse(w.ingested_at)));
    }
    assert.ok(listed[2]!.index_bytes > listed[0]!.index_bytes, 'the largest well has the largest share');
    assert.match(await admin('well:list'), new RegExp(`${GONE}\\n  records 13, date 2021-03-04, sensitive`));
  });

  test('well:delete takes a merged well down on both instances within 5 s, from every path', async () => {
    // Before: everything is there, on both.
    for (const i of [0, 1]) {
      assert.equal((await dashboard(i, 'gone3@wells.example')).body.total_results, 1);
      assert.equal((await v2(i, 'search-password', { hash: sha1('gone-pass-3') })).body.results_found, 1);
    }
    const before = (await dashboard(0, 'kept0@wells.example')).body;
    assert.equal(before.data_wells, 3);
    const goneSegments = (await db.selectFrom('data_wells').select('segment_ids').where('name', '=', GONE).executeTakeFirstOrThrow()).segment_ids;

    assert.match(await admin('well:delete', '--well', GONE, '--reason', 'legal takedown 31-1'), /taken down \(13 records/);
    const delays = await onBoth(totalIs('gone3@wells.example', 0), editedAt());
    console.log(`takedown visible after ${delays.map((d) => `${d} ms`).join(', ')}`);
    for (const d of delays) assert.ok(d <= VISIBLE_WITHIN_MS, `gone after ${d} ms`);

    for (const i of [0, 1]) {
      // Dashboard search (and so its export, built from these pages) and its counts.
      assert.equal((await v2(i, 'search', { query: 'email:*@wells.example', wildcard: true })).body.total, KEPT_RECORDS.length + THIRD_RECORDS.length, 'the other wells remain, the shared record once');
      const all = (await dashboard(i, 'kept0@wells.example')).body;
      assert.equal(all.data_wells, 2);
      assert.equal(all.assets_searched, before.assets_searched - GONE_RECORDS.length);
      const shared = (await dashboard(i, SHARED.email)).body;
      assert.deepEqual(shared.results.map((r: { database_name: string }) => r.database_name), [KEPT], 'the shared record is found in the live well');
      // /v2/search: entries and total.
      const api = (await v2(i, 'search', { query: 'email:gone*@wells.example', wildcard: true })).body;
      assert.equal(api.total, 0);
      assert.deepEqual(api.entries, []);
      assert.equal((await v2(i, 'search', { query: 'url:*takedown*', wildcard: true })).body.total, 0);
      assert.equal((await v2(i, 'search', { query: `email:${SHARED.email}` })).body.entries[0].database_name, KEPT);
      // Both password checks.
      assert.equal((await v2(i, 'search-password', { hash: sha1('gone-pass-3') })).body.results_found, 0);
      assert.equal((await v2(i, 'search-password', { hash: sha1('kept-pass-3') })).body.results_found, 1);
      assert.equal((await v2(i, 'search-password', { hash: sha1(SHARED.password) })).body.results_found, 1);
      const range = (await v2(i, 'search-password-range', { prefix: sha1('gone-pass-5').slice(0, 5) })).body;
      assert.ok(!range.suffixes.some((s: { suffix: string }) => s.suffix === sha1('gone-pass-5').slice(5)), 'not in the k-anonymity range');
      // The catalogue.
      assert.ok(!(await catalogue(i)).some((w) => w.name === GONE));
    }
    // Monitoring matches a dump through the engine's matchWatches: a reader of the same
    // index (a process of its own here) matches nothing of the taken-down ingest.
    const engine = await openEngine(indexDir);
    try {
      for (const segment of goneSegments) {
        assert.deepEqual(await engine.matchWatches(segment, [{ id: 'e', field: 'email', value: 'gone1@wells.example' }, { id: 'd', field: 'domain', value: 'takedown.example' }]), []);
      }
    } finally {
      await engine.close();
    }
    const audit = await db.selectFrom('audit_log').selectAll().where('action', '=', 'well:delete').execute();
    assert.equal(audit.length, 1);
    assert.deepEqual([audit[0]!.operator, audit[0]!.target, audit[0]!.reason], ['wells-test', GONE, 'legal takedown 31-1']);
    // A second takedown of the same name is refused clearly, and nothing changes.
    const again = await run('admin', ['well:delete', '--well', GONE]);
    assert.equal(again.code, 1);
    assert.match(again.err, /no data well named "Takedown Well"/);
  });

  test('well:update and --rename are seen on both instances', async () => {
    await admin('well:update', '--well', KEPT, '--description', 'Corrected <b>text</b>', '--date', '2019-12-31', '--sensitive', '--rename', 'Kept Well 2019', '--reason', 'wrong ingest metadata');
    // The catalogue is read from PostgreSQL on each request: at once.
    for (const i of [0, 1]) {
      const w = (await catalogue(i)).find((x) => x.name === 'Kept Well 2019');
      assert.deepEqual(w && [w.description, w.date, w.is_sensitive], ['Corrected <b>text</b>', '2019-12-31', true]);
      assert.ok(!(await catalogue(i)).some((x) => x.name === KEPT));
    }
    const delays = await onBoth(async (i) => {
      const r = await dashboard(i, 'kept1@wells.example');
      return [r.body.results?.[0]?.database_name === 'Kept Well 2019', { status: r.status, wells: r.body.results?.map((x: { database_name: string }) => x.database_name) }];
    }, editedAt());
    console.log(`rename visible after ${delays.map((d) => `${d} ms`).join(', ')}`);
    for (const d of delays) assert.ok(d <= VISIBLE_WITHIN_MS, `renamed after ${d} ms`);
    for (const i of [0, 1]) {
      const api = (await v2(i, 'search', { query: 'email:kept*@wells.example', wildcard: true })).body;
      assert.equal(api.total, KEPT_RECORDS.length - 1);
      assert.ok(api.entries.every((e: { database_name: string }) => e.database_name === 'Kept Well 2019'));
    }
    // A later ingest replays every published segment into the catalogue: the corrections,
    // the new name and the takedown hold.
    await ingest('Later Well', [{ email: 'later@wells.example' }]);
    const names = (await db.selectFrom('data_wells').select(['name', 'description', 'is_sensitive']).orderBy('name').execute()).map((r) => [r.name, r.description, r.is_sensitive]);
    assert.deepEqual(names, [
      ['Kept Well 2019', 'Corrected <b>text</b>', true],
      ['Later Well', '', false],
      [THIRD, '', false],
    ]);
    // Bad input: a clear error, nothing changed.
    const bad = await run('admin', ['well:update', '--well', THIRD, '--date', '2019-02-30']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--date must be a real day/);
    const taken = await run('admin', ['well:update', '--well', THIRD, '--rename', 'Later Well']);
    assert.equal(taken.code, 1);
    assert.match(taken.err, /already exists/);
    assert.equal((await db.selectFrom('audit_log').select('id').where('action', '=', 'well:update').execute()).length, 1);
  });

  test('well:delete --purge rewrites the merged segment: the index shrinks, answers stay', async () => {
    const bytes = (dir: string): number =>
      fs.readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? bytes(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).size), 0);
    const before = bytes(indexDir);
    const out = await admin('well:delete', '--well', THIRD, '--purge');
    assert.match(out, /purged: \d+ segment\(s\) dropped, 1 rewritten/);
    const after = bytes(indexDir);
    console.log(`purge: index ${before} -> ${after} bytes`);
    assert.ok(after < before, `the index shrinks (${before} -> ${after})`);
    const purgedAt = fs.statSync(path.join(indexDir, 'MANIFEST')).mtimeMs;
    const delays = await onBoth(totalIs('*@wells.example', KEPT_RECORDS.length + 1), purgedAt);
    console.log(`purged segment served after ${delays.map((d) => `${d} ms`).join(', ')}`);
    for (const d of delays) assert.ok(d <= VISIBLE_WITHIN_MS, `served after ${d} ms`);
    for (const i of [0, 1]) {
      assert.equal((await dashboard(i, 'third7@wells.example')).body.total_results, 0);
      assert.equal((await dashboard(i, 'gone7@wells.example')).body.total_results, 0);
      assert.equal((await v2(i, 'search-password', { hash: sha1('kept-pass-2') })).body.results_found, 1);
      assert.equal((await dashboard(i, SHARED.email)).body.results[0].database_name, 'Kept Well 2019');
    }
  });
});
