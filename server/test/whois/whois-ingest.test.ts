/**
 * `npm run whois-ingest` (scripts/whois-ingest.ts, server/src/whois/ingest): every format
 * from the samples into a real PostgreSQL, idempotent re-imports, bad lines with their
 * numbers, gzip, passive DNS merging, consecutive zone files, and the CLI end to end.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from '../../src/infra/database';
import { ingestSamples, ingestWhoisFiles, SAMPLE_FILES, SAMPLES_DIR, type WhoisIngestResult } from '../../src/whois/ingest/whois-ingest-service';
import { createTestDatabase } from '../support/harness';
import { cliArgs } from '../../../scripts/lib/cli-command';

const ROOT = path.resolve(import.meta.dirname, '../../..');
let database: { url: string; drop(): Promise<void> };
let pool: pg.Pool;
let scratch: string;

before(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 1 }) }) });
  await migrateToLatest(db);
  await db.destroy();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'whois-ingest-test-'));
});

after(async () => {
  await pool.end();
  await database.drop();
  fs.rmSync(scratch, { recursive: true, force: true });
});

async function rows<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
  return (await pool.query(text, params)).rows as T[];
}

/** Everything the store holds, as text: a second import must leave it identical. */
async function storeState(): Promise<string> {
  const parts = await Promise.all([
    rows(`select rrname_rev, rrtype, rdata, first_seen, last_seen, count, source from pdns order by 1, 2, 3`),
    rows(`select name_rev, first_seen, last_seen, sources from subdomains order by 1`),
    rows(`select domain, observed_at, last_observed_at, source, record, is_current, encode(content_sha256, 'hex') h from whois_snapshots order by domain, h`),
    rows(`select sha256, format, rows from whois_ingest_files order by 1`),
  ]);
  return JSON.stringify(parts);
}

function write(name: string, content: string | Buffer): string {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, content);
  return file;
}

function statuses(results: WhoisIngestResult[]): string[] {
  return results.flatMap((r) => r.files.map((f) => f.status));
}

describe('samples', () => {
  let first: WhoisIngestResult[];

  before(async () => {
    first = await ingestSamples(pool);
  });

  test('every sample file imports with its format, without a bad line', () => {
    assert.equal(first.length, SAMPLE_FILES.length);
    for (const r of first) {
      const f = r.files[0]!;
      assert.equal(f.status, 'imported', f.path);
      assert.equal(r.badLines, 0, `${f.path}: ${JSON.stringify(r.badSamples)}`);
      assert.ok(f.records > 0, f.path);
    }
  });

  test('pdns: names reversed, answers normalised, duplicates merged (count summed, least first, greatest last)', async () => {
    // acme-widgets.test A 192.0.2.10 appears three times in pdns.ndjson, once as Acme-Widgets.TEST.
    const sample = fs
      .readFileSync(path.join(SAMPLES_DIR, 'pdns.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { rrname: string; rrtype: string; rdata: string; time_first: number; time_last: number; count: number })
      .filter((r) => r.rrname.toLowerCase().replace(/\.$/, '') === 'acme-widgets.test' && r.rrtype === 'A' && r.rdata === '192.0.2.10');
    assert.equal(sample.length, 3);
    const [row] = await rows<{ first_seen: Date; last_seen: Date; count: string }>(
      `select first_seen, last_seen, count from pdns where rrname_rev = 'test.acme-widgets' and rrtype = 'A' and rdata = '192.0.2.10'`,
    );
    assert.equal(Number(row!.count), sample.reduce((n, r) => n + r.count, 0));
    assert.equal(row!.first_seen.getTime() / 1000, Math.min(...sample.map((r) => r.time_first)));
    assert.equal(row!.last_seen.getTime() / 1000, Math.max(...sample.map((r) => r.time_last)));

    const mx = await rows<{ rdata: string }>(`select rdata from pdns where rrname_rev = 'test.acme-widgets' and rrtype in ('MX', 'NS', 'AAAA') order by rrtype, rdata`);
    assert.deepEqual(
      mx.map((r) => r.rdata),
      ['2001:db8:10::1', 'mx1.mailhost.example.net', 'ns1.dnshost.example.org', 'ns2.dnshost.example.org'],
    );
    // Reverse IP: one range of the (rrtype, rdata) index; many names share the address.
    const shared = await rows(`select rrname_rev from pdns where rrtype = 'A' and rdata = '192.0.2.10'`);
    assert.ok(shared.length >= 10, `${shared.length} names on 192.0.2.10`);
    // Owner names and MX/NS targets are names seen.
    const names = await rows<{ name_rev: string; sources: string[] }>(
      `select name_rev, sources from subdomains where name_rev in ('test.acme-widgets.www', 'net.example.mailhost.mx1') order by 1`,
    );
    assert.deepEqual(names.map((n) => n.name_rev), ['net.example.mailhost.mx1', 'test.acme-widgets.www']);
    assert.ok(names[1]!.sources.includes('sample:pdns'));
  });

  test('zone: consecutive versions keep first_seen and move last_seen; removed records keep their last time', async () => {
    const v1 = Date.parse('2025-05-01T00:00:00Z');
    const v2 = Date.parse('2026-05-01T00:00:00Z');
    const seen = async (rev: string, type: string, rdata: string) => {
      const [r] = await rows<{ first_seen: Date; last_seen: Date; count: string }>(
        `select first_seen, last_seen, count from pdns where rrname_rev = $1 and rrtype = $2 and rdata = $3`,
        [rev, type, rdata],
      );
      return r ? [r.first_seen.getTime(), r.last_seen.getTime(), Number(r.count)] : null;
    };
    // (records the pdns sample does not also hold)
    assert.deepEqual(await seen('test.example.mail', 'A', '192.0.2.25'), [v1, v2, 2]); // in both
    assert.deepEqual(await seen('test.example', 'MX', 'mail.example.test'), [v1, v2, 2]); // relative MX host
    assert.deepEqual(await seen('test.example', 'NS', 'ns1.example.test'), [v1, v2, 2]); // owner omitted
    assert.deepEqual(await seen('test.example.legacy', 'A', '203.0.113.99'), [v1, v1, 1]); // gone in v2
    assert.deepEqual(await seen('test.example.api', 'A', '198.51.100.21'), [v1, v1, 1]);
    assert.deepEqual(await seen('test.example.api', 'A', '198.51.100.22'), [v2, v2, 1]); // new in v2
    assert.deepEqual(await seen('test.example.dev.ci', 'A', '198.51.100.33'), [v2, v2, 1]); // second $ORIGIN
    assert.equal(await seen('test.example.apps.*', 'A', '198.51.100.80'), null); // wildcards are not names
    const [dmarc] = await rows<{ first_seen: Date; last_seen: Date }>(`select first_seen, last_seen from subdomains where name_rev = 'test.example._dmarc'`);
    assert.deepEqual([dmarc!.first_seen.getTime(), dmarc!.last_seen.getTime()], [v1, v2]); // TXT owner: a name seen
  });

  test('rdap: a snapshot per content, history a year apart, the newest current, a redacted registrant masked', async () => {
    const history = await rows<{ registrar_name: string; observed_at: Date; is_current: boolean }>(
      `select registrar_name, observed_at, is_current from whois_snapshots where domain = 'acme-widgets.test' order by observed_at`,
    );
    assert.deepEqual(
      history.map((h) => [h.registrar_name, h.observed_at.toISOString().slice(0, 10), h.is_current]),
      [
        ['Testing Domains GmbH', '2024-10-01', false],
        ['Sample Names LLC', '2025-10-01', false],
        ['Example Registrar, Inc.', '2026-10-01', true],
      ],
    );
    const [masked] = await rows<{ record: { dataError?: string; registrant?: Record<string, string> } }>(
      `select record from whois_snapshots where domain = 'hollow-pine.test' and is_current`,
    );
    assert.equal(masked!.record.dataError, 'MASKED_WHOIS_DATA');
    assert.equal(JSON.stringify(masked!.record).includes('REDACTED'), false);
    const terms = await rows(`select domain from whois_snapshots where is_current and search_text like '%alice@acme-widgets.test%'`);
    assert.ok(terms.length >= 1);
  });

  test('whoisxml-csv: columns by header, quoted commas, pipe-separated name servers, audit date as observation', async () => {
    const [row] = await rows<{ observed_at: Date; record: Record<string, unknown> }>(
      `select observed_at, record from whois_snapshots where domain = 'elm-street.test' and source = 'sample:whoisxml-csv'`,
    );
    assert.equal(row!.observed_at.toISOString(), '2024-01-15T00:00:00.000Z');
    const record = row!.record as { registrant: { organization: string; country: string }; nameServers: { hostNames: string[] }; status: string[]; createdDateNormalized: string };
    assert.equal(record.registrant.organization, 'Acme Widgets Ltd, Inc.');
    assert.equal(record.registrant.country, 'UNITED STATES');
    assert.deepEqual(record.nameServers.hostNames, ['ns1.example.net', 'ns2.example.net']);
    assert.deepEqual(record.status, ['clientTransferProhibited', 'clientUpdateProhibited']);
    assert.equal(record.createdDateNormalized, '2008-01-01 10:00:00 UTC');
    const [masked] = await rows<{ record: { dataError?: string } }>(`select record from whois_snapshots where domain = 'silver-lake.test' and source = 'sample:whoisxml-csv'`);
    assert.equal(masked!.record.dataError, 'MASKED_WHOIS_DATA');
  });

  test('crtsh and subfinder: names seen, wildcards stripped, sources kept', async () => {
    const crt = await rows<{ sources: string[] }>(`select sources from subdomains where 'sample:crtsh' = any(sources)`);
    assert.ok(crt.length > 30);
    assert.equal((await rows(`select 1 from subdomains where name_rev like '%*%'`)).length, 0);
    const sub = await rows(`select 1 from subdomains where 'sample:subfinder' = any(sources)`);
    assert.ok(sub.length > 50);
  });

  test('importing the samples again changes nothing and says so', async () => {
    const before = await storeState();
    const again = await ingestSamples(pool);
    assert.deepEqual(statuses(again), SAMPLE_FILES.map(() => 'already imported'));
    assert.equal(await storeState(), before);
  });
});

describe('files', () => {
  test('pdns across files: count summed, least first, greatest last; gzip recognised by magic bytes', async () => {
    const line = (first: number, last: number, count: number, rdata: unknown = '192.0.2.77') =>
      JSON.stringify({ rrname: 'merge.example.test', rrtype: 'A', rdata, time_first: first, time_last: last, count });
    const a = write('merge-a.ndjson', `${line(2000, 3000, 5)}\n${line(1500, 2500, 1)}\n`);
    const b = write('merge-b.ndjson.data', gzipSync(`${line(1000, 2000, 10)}\n${line(2500, 4000, 2, ['192.0.2.77', '192.0.2.78'])}\n`));
    const ra = await ingestWhoisFiles(pool, { format: 'pdns', files: [a], source: 'merge' });
    const rb = await ingestWhoisFiles(pool, { format: 'pdns', files: [b], source: 'merge' });
    assert.equal(ra.files[0]!.gzip, false);
    assert.equal(rb.files[0]!.gzip, true);
    assert.equal(rb.files[0]!.records, 2);
    const got = await rows<{ rdata: string; first_seen: Date; last_seen: Date; count: string }>(
      `select rdata, first_seen, last_seen, count from pdns where rrname_rev = 'test.example.merge' order by rdata`,
    );
    assert.deepEqual(
      got.map((r) => [r.rdata, r.first_seen.getTime() / 1000, r.last_seen.getTime() / 1000, Number(r.count)]),
      [
        ['192.0.2.77', 1000, 4000, 18],
        ['192.0.2.78', 2500, 4000, 2],
      ],
    );
  });

  test('pdns: rows of a key spread over batches and out of order merge as one; a sum past 2^53 is exact', async () => {
    // Batches are grouped and sorted in node (stage.ts, PdnsRows): 40,000 rows cross several
    // batches; keys differ by type, answer, name and escaped characters; one key's counts sum
    // past Number.MAX_SAFE_INTEGER (that batch is staged as it came, grouped by PostgreSQL).
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    const keys: [string, string, string][] = [];
    for (let k = 0; k < 300; k++) {
      const name = `h${k % 37}.order${k % 3}.test`;
      if (k % 10 === 0) keys.push([name, 'TXT', `v=x${k % 7}\\tail\t${k}`]);
      else keys.push([name, 'A', `198.51.${k % 5}.${k % 11}`]);
    }
    const want = new Map<string, { first: number; last: number; count: number }>();
    const lines: string[] = [];
    const add = (key: [string, string, string], first: number, last: number, count: number) => {
      lines.push(JSON.stringify({ rrname: key[0], rrtype: key[1], rdata: key[2], time_first: first, time_last: last, count }));
    };
    for (let i = 0; i < 40_000; i++) {
      const first = 1_600_000_000 + random(1_000_000);
      add(keys[random(keys.length)]!, first, first + random(100_000), 1 + random(50));
    }
    for (let i = 0; i < 9_008; i++) add(['big.order.test', 'A', '198.51.100.1'], 1_600_000_000, 1_600_000_001, 1e12);
    const file = write('order.ndjson', lines.join('\n') + '\n');
    const result = await ingestWhoisFiles(pool, { format: 'pdns', files: [file], source: 'order' });
    assert.equal(result.files[0]!.badLines, 0);
    for (const line of lines) {
      const r = JSON.parse(line) as { rrname: string; rrtype: string; rdata: string; time_first: number; time_last: number; count: number };
      const rev = r.rrname.split('.').reverse().join('.');
      const key = JSON.stringify([rev, r.rrtype, r.rdata]);
      const w = want.get(key);
      if (w === undefined) want.set(key, { first: r.time_first, last: r.time_last, count: r.count });
      else want.set(key, { first: Math.min(w.first, r.time_first), last: Math.max(w.last, r.time_last), count: w.count + r.count });
    }
    const got = await rows<{ rrname_rev: string; rrtype: string; rdata: string; first_seen: Date; last_seen: Date; count: string }>(
      `select rrname_rev, rrtype, rdata, first_seen, last_seen, count::text as count from pdns where source = 'order'`,
    );
    assert.equal(got.length, want.size);
    for (const g of got) {
      const key = JSON.stringify([g.rrname_rev, g.rrtype, g.rdata]);
      const w = want.get(key);
      assert.ok(w, key);
      if (g.rrname_rev === 'test.order.big') {
        assert.equal(g.count, '9008000000000000');
        continue;
      }
      assert.deepEqual([g.first_seen.getTime() / 1000, g.last_seen.getTime() / 1000, Number(g.count)], [w.first, w.last, w.count], key);
    }
    assert.ok(got.some((g) => g.rdata.includes('\t')), 'an answer with a tab');
  });

  test('bad lines: reported with their line numbers and reasons, good lines kept, the report file lists them', async () => {
    const good = (i: number) => JSON.stringify({ rrname: `ok${i}.bad.example.test`, rrtype: 'AAAA', rdata: '2001:DB8::0:1', time_first: 100, time_last: 200 });
    const lines = [
      good(1), // 1
      '{not json', // 2
      JSON.stringify({ rrtype: 'A', rdata: '192.0.2.1', time_first: 1 }), // 3: no rrname
      JSON.stringify({ rrname: 'x.example.test', rrtype: 'A', rdata: '999.0.0.1', time_first: 1 }), // 4: bad IP
      JSON.stringify({ rrname: 'x.example.test', rrtype: 'A', rdata: '192.0.2.1', time_first: 1, count: 0 }), // 5
      JSON.stringify({ rrname: 'x.example.test', rrtype: 'A', rdata: '192.0.2.1' }), // 6: no time
      `{"rrname":"${'a'.repeat(1100 * 1024)}"}`, // 7: longer than 1 MiB
      good(2), // 8
      JSON.stringify({ rrname: 'bad name!.example.test', rrtype: 'A', rdata: '192.0.2.1', time_first: 1 }), // 9
      '', // 10: blank, skipped
      good(3), // 11
    ];
    const file = write('bad.ndjson', lines.join('\r\n'));
    const reportPath = path.join(scratch, 'bad-report.txt');
    const r = await ingestWhoisFiles(pool, { format: 'pdns', files: [file], reportPath });
    assert.equal(r.files[0]!.records, 3);
    assert.equal(r.badLines, 7);
    assert.deepEqual(
      r.badSamples.map((b) => b.line),
      [2, 3, 4, 5, 6, 7, 9],
    );
    assert.match(r.badSamples.find((b) => b.line === 7)!.reason, /longer than/);
    assert.match(r.badSamples.find((b) => b.line === 4)!.reason, /A answer/);
    const report = fs.readFileSync(reportPath, 'utf8').trim().split('\n');
    assert.equal(report.length, 7);
    assert.ok(report[0]!.startsWith(`${file}:2: not valid JSON`), report[0]);
    const kept = await rows<{ rdata: string }>(`select rdata from pdns where rrname_rev like 'test.example.bad.%' order by rrname_rev`);
    assert.deepEqual(kept.map((k) => k.rdata), ['2001:db8::1', '2001:db8::1', '2001:db8::1']);
  });

  test('bad lines read while the file is being hashed: more than are held, all reported in order; the same file again reports none', async () => {
    // The claim (and so the report) waits for the file's sha256 (index.ts, ingestOne): bad
    // lines before it are held, at most MAX_HELD_BAD_LINES (1,000) of them.
    const lines: string[] = [];
    for (let i = 0; i < 2_500; i++) {
      lines.push(`{broken ${i}`);
      lines.push(JSON.stringify({ rrname: `h${i}.held.example.test`, rrtype: 'A', rdata: '192.0.2.9', time_first: 100, time_last: 200 }));
    }
    const file = write('held.ndjson', lines.join('\n') + '\n');
    const reportPath = path.join(scratch, 'held-report.txt');
    const r = await ingestWhoisFiles(pool, { format: 'pdns', files: [file], reportPath });
    assert.equal(r.files[0]!.status, 'imported');
    assert.equal(r.files[0]!.records, 2_500);
    assert.equal(r.badLines, 2_500);
    const report = fs.readFileSync(reportPath, 'utf8').trim().split('\n');
    assert.equal(report.length, 2_500);
    assert.deepEqual(
      report.map((l) => Number(l.slice(file.length + 1).split(':')[0])),
      Array.from({ length: 2_500 }, (_, i) => 2 * i + 1),
    );
    assert.equal((await rows(`select 1 from pdns where rrname_rev like 'test.example.held.%'`)).length, 2_500);

    const again = await ingestWhoisFiles(pool, { format: 'pdns', files: [file], reportPath });
    assert.equal(again.files[0]!.status, 'already imported');
    assert.equal(again.badLines, 0);
    assert.equal(fs.readFileSync(reportPath, 'utf8').trim().split('\n').length, 2_500);
  });

  test('zone: unsupported directives, names without an origin and an unclosed parenthesis are bad, at the record start', async () => {
    const file = write(
      'bad.zone',
      [
        'www 3600 IN A 192.0.2.1', // 1: relative name before $ORIGIN
        '$ORIGIN zbad.example.test.', // 2
        '$INCLUDE /etc/passwd', // 3
        'ok IN A 192.0.2.2', // 4
        'mx IN MX 10', // 5: MX without a host
        '@ IN SOA ns hostmaster (', // 6: never closed
        '  1 2 3 4 5',
      ].join('\n'),
    );
    const r = await ingestWhoisFiles(pool, { format: 'zone', files: [file], observedAt: new Date('2026-01-01T00:00:00Z') });
    assert.deepEqual(
      r.badSamples.map((b) => [b.line, b.reason]),
      [
        [1, 'relative name without $ORIGIN'],
        [3, '$INCLUDE is not supported'],
        [5, 'invalid MX data'],
        [6, 'unclosed parenthesis'],
      ],
    );
    assert.equal(r.files[0]!.records, 1);
    assert.equal((await rows(`select 1 from pdns where rrname_rev = 'test.example.zbad.ok'`)).length, 1);
  });

  test('crtsh and whoisxml-csv: values over several lines, bad entries by line', async () => {
    const crt = write(
      'crt.json',
      '[\n{"name_value":"a.crt.example.test\\n*.crt.example.test",\n "entry_timestamp":"2024-01-02T03:04:05.678"},\n42,\n{"name_value":"someone@example.test"},\n{"common_name":"b.crt.example.test","not_before":"2023-05-05T00:00:00"}\n]\n',
    );
    const rc = await ingestWhoisFiles(pool, { format: 'crtsh', files: [crt] });
    assert.equal(rc.files[0]!.records, 2);
    assert.deepEqual(
      rc.badSamples.map((b) => [b.line, b.reason]),
      [
        [4, 'not a JSON object'],
        [5, 'no host name in name_value or common_name'],
      ],
    );
    const names = await rows<{ name_rev: string; first_seen: Date }>(`select name_rev, first_seen from subdomains where name_rev like 'test.example.crt%' order by 1`);
    assert.deepEqual(
      names.map((n) => [n.name_rev, n.first_seen.toISOString()]),
      [
        ['test.example.crt', '2024-01-02T03:04:05.000Z'],
        ['test.example.crt.a', '2024-01-02T03:04:05.000Z'],
        ['test.example.crt.b', '2023-05-05T00:00:00.000Z'],
      ],
    );

    const csv = write(
      'w.csv',
      'domainName,registrarName,registrant_organization,registrant_street1,Audit_auditUpdatedDate\n' +
        'one.example.test,"Reg, Inc.","Org ""Quoted""","line one\nline two",2025-01-01 00:00:00 UTC\n' +
        'not a domain,Reg,,,\n' +
        'two.example.test,Reg,Org,street,2025-01-01,extra\n' +
        'three.example.test,Reg,Org,street,\n',
    );
    const rw = await ingestWhoisFiles(pool, { format: 'whoisxml-csv', files: [csv], observedAt: new Date('2026-02-02T00:00:00Z') });
    assert.deepEqual(
      rw.badSamples.map((b) => [b.line, b.reason]),
      [
        [4, 'domainName missing or invalid'],
        [5, '6 fields, the header has 5'],
      ],
    );
    const snaps = await rows<{ domain: string; observed_at: Date; registrar_name: string; record: { registrant: { organization: string } } }>(
      `select domain, observed_at, registrar_name, record from whois_snapshots where domain in ('one.example.test', 'three.example.test') order by domain`,
    );
    assert.deepEqual(
      snaps.map((s) => [s.domain, s.observed_at.toISOString(), s.registrar_name, s.record.registrant.organization]),
      [
        ['one.example.test', '2025-01-01T00:00:00.000Z', 'Reg, Inc.', 'Org "Quoted"'],
        ['three.example.test', '2026-02-02T00:00:00.000Z', 'Reg', 'Org'],
      ],
    );
  });

  test('a missing file fails alone: the files after it are imported', async () => {
    const good = write('after-missing.jsonl', 'after.missing.example.test\n');
    const r = await ingestWhoisFiles(pool, { format: 'subfinder', files: [path.join(scratch, 'nope.jsonl'), good] });
    assert.deepEqual(
      r.files.map((f) => [f.status, f.error]),
      [
        ['failed', 'no such file'],
        ['imported', undefined],
      ],
    );
  });

  test('a dry run keeps nothing; the same file imported at once by two processes is imported once', async () => {
    const file = write('twice.jsonl', ['{"host":"a.twice.example.test","source":"x"}', 'b.twice.example.test', ''].join('\n'));
    const dry = await ingestWhoisFiles(pool, { format: 'subfinder', files: [file], dryRun: true });
    assert.equal(dry.files[0]!.status, 'dry run');
    assert.equal(dry.files[0]!.records, 2);
    assert.equal((await rows(`select 1 from subdomains where name_rev like 'test.example.twice.%'`)).length, 0);
    const other = new pg.Pool({ connectionString: database.url, max: 2 });
    try {
      const both = await Promise.all([ingestWhoisFiles(pool, { format: 'subfinder', files: [file] }), ingestWhoisFiles(other, { format: 'subfinder', files: [file] })]);
      assert.deepEqual(statuses(both).sort(), ['already imported', 'imported']);
    } finally {
      await other.end();
    }
    assert.equal((await rows(`select 1 from subdomains where name_rev like 'test.example.twice.%'`)).length, 2);
  });
});

describe('a file that breaks after batches were merged', () => {
  // More rows than the first batches (stage.ts FIRST_BATCH_ROWS, doubling), so pdns rows and
  // names are merged (on two connections) before the input breaks.
  const lines = Array.from({ length: 120_000 }, (_, i) =>
    JSON.stringify({ rrname: `h${i}.broken.example.test`, rrtype: 'MX', rdata: `10 mx${i % 50}.mail.broken.example.test.`, time_first: 1_600_000_000, time_last: 1_600_000_000 + i, count: 1 }),
  );
  const whole = gzipSync(lines.join('\n') + '\n');

  test('keeps nothing of it, neither pdns rows nor names; importing the whole file then keeps all of it', async () => {
    const cut = write('broken.ndjson.gz', whole.subarray(0, Math.floor(whole.length * 0.95)));
    const r = await ingestWhoisFiles(pool, { format: 'pdns', files: [cut] });
    assert.equal(r.files[0]!.status, 'failed');
    assert.ok(r.files[0]!.records > 100_000, `${r.files[0]!.records} records read before the break`);
    assert.equal((await rows(`select 1 from pdns where rrname_rev like 'test.example.broken.%'`)).length, 0);
    assert.equal((await rows(`select 1 from subdomains where name_rev like 'test.example.broken.%'`)).length, 0);
    assert.equal((await rows(`select 1 from whois_ingest_files where name = 'broken.ndjson.gz'`)).length, 0);

    const full = write('broken-whole.ndjson.gz', whole);
    const ok = await ingestWhoisFiles(pool, { format: 'pdns', files: [full] });
    assert.equal(ok.files[0]!.status, 'imported');
    const [counts] = await rows<{ pdns: number; owners: number; targets: number }>(
      `select (select count(*) from pdns where rrname_rev like 'test.example.broken.h%') pdns,
              (select count(*) from subdomains where name_rev like 'test.example.broken.h%') owners,
              (select count(*) from subdomains where name_rev like 'test.example.broken.mail.%') targets`,
    );
    assert.deepEqual(counts, { pdns: 120_000, owners: 120_000, targets: 50 });
    // A target seen by many rows: least first, greatest last over all of them (two batches).
    const [mx0] = await rows<{ first_seen: Date; last_seen: Date }>(`select first_seen, last_seen from subdomains where name_rev = 'test.example.broken.mail.mx0'`);
    assert.equal(mx0!.first_seen.getTime() / 1000, 1_600_000_000);
    assert.equal(mx0!.last_seen.getTime() / 1000, 1_600_000_000 + 119_950);
    const before = await storeState();
    const again = await ingestWhoisFiles(pool, { format: 'pdns', files: [full] });
    assert.equal(again.files[0]!.status, 'already imported');
    assert.equal(await storeState(), before);
  });
});

describe('a merge that fails in the database while later batches wait', () => {
  // Each connection merges its batches in order while node reads the next ones (stage.ts,
  // flush): a batch refused by PostgreSQL on either connection fails the file, the error
  // surfaces at a later flush or at the end, and neither transaction keeps anything.
  // A file of its own for each test (another sha256): times start at `from`.
  const lines = (from: number) =>
    Array.from({ length: 60_000 }, (_, i) =>
      JSON.stringify({ rrname: i === 20_000 ? 'refused.queue.fail.test' : `h${i}.queue.fail.test`, rrtype: 'NS', rdata: `ns${i % 7}.dns.fail.test`, time_first: from + i, time_last: from + 100 + i }),
    );

  for (const [table, column] of [
    ['pdns', 'rrname_rev'],
    ['subdomains', 'name_rev'],
  ] as const) {
    test(`refused by ${table}: nothing kept on either connection; the file imports once the refusal is gone`, async () => {
      await pool.query(
        `create function whois_test_refuse() returns trigger language plpgsql as $$
         begin if new.${column} like '%.refused' then raise exception 'refused by the test'; end if; return new; end $$`,
      );
      await pool.query(`create trigger whois_test_refuse before insert on ${table} for each row execute function whois_test_refuse()`);
      const file = write(`queue-${table}.ndjson`, lines(table === 'pdns' ? 1_600_000_000 : 1_700_000_000).join('\n') + '\n');
      try {
        const r = await ingestWhoisFiles(pool, { format: 'pdns', files: [file] });
        assert.equal(r.files[0]!.status, 'failed');
        assert.match(r.files[0]!.error ?? '', /refused by the test/);
      } finally {
        await pool.query(`drop trigger whois_test_refuse on ${table}`);
        await pool.query('drop function whois_test_refuse()');
      }
      assert.equal((await rows(`select 1 from pdns where rrname_rev like 'test.fail.%'`)).length, 0);
      assert.equal((await rows(`select 1 from subdomains where name_rev like 'test.fail.%'`)).length, 0);
      assert.equal((await rows(`select 1 from whois_ingest_files where name = $1`, [path.basename(file)])).length, 0);

      const ok = await ingestWhoisFiles(pool, { format: 'pdns', files: [file] });
      assert.equal(ok.files[0]!.status, 'imported');
      const [counts] = await rows<{ pdns: number; names: number }>(
        `select (select count(*)::int from pdns where rrname_rev like 'test.fail.%') pdns,
                (select count(*)::int from subdomains where name_rev like 'test.fail.%') names`,
      );
      assert.deepEqual(counts, { pdns: 60_000, names: 60_007 });
      await pool.query(`delete from pdns where rrname_rev like 'test.fail.%'`);
      await pool.query(`delete from subdomains where name_rev like 'test.fail.%'`);
    });
  }
});

describe('the command', () => {
  function run(args: string[], stdin: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [...cliArgs('whois-ingest'), ...args], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: database.url },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
      child.stdin.end(stdin);
    });
  }

  test('reads standard input (-), prints a summary with bad lines; the same input again is "already imported"', async () => {
    const input = [
      JSON.stringify({ rrname: 'cli.example.test', rrtype: 'NS', rdata: ['NS1.Example.NET.', 'ns2.example.net'], zone_time_first: 1700000000, zone_time_last: 1700001000 }),
      'garbage',
    ].join('\n');
    const first = await run(['--format', 'pdns', '--source', 'cli-test', '-'], input);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /- \[pdns\]: imported: 1 records \(2 passive DNS rows\), 1 bad/);
    assert.match(first.stdout, /-:2: not valid JSON: "garbage"/);
    const ns = await rows<{ rdata: string; source: string }>(`select rdata, source from pdns where rrname_rev = 'test.example.cli' order by rdata`);
    assert.deepEqual(ns, [
      { rdata: 'ns1.example.net', source: 'cli-test' },
      { rdata: 'ns2.example.net', source: 'cli-test' },
    ]);
    const second = await run(['--format', 'pdns', '-'], input);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /already imported/);

    const usage = await run(['--format', 'nope', 'x'], '');
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--format must be one of pdns, rdap, zone, whoisxml-csv, crtsh, subfinder/);
  });
});
