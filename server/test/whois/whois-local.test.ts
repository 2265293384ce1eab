/**
 * The local WHOIS provider against a real PostgreSQL store (migration 0006): WHOIS and
 * history from snapshots, reverse WHOIS over current and historic snapshots, reverse
 * IP/MX/NS pages over passive DNS, subdomain scans over key ranges.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { REVERSE_WHOIS_MAX_RESULTS, domainAgeDays, type ReverseLookupAnswer, type WhoisRecord } from '../../src/common/whois-rules';
import type { Database } from '../../src/db/schema';
import { createPool, migrateToLatest } from '../../src/infra/database';
import { createLocalProvider, normaliseIp, planTerms } from '../../src/whois/local-provider';
import { containsPattern } from '../../src/whois/local-repository';
import { reverseName } from '../../src/whois/names';
import type { WhoisProvider } from '../../src/whois/provider';
import { recordSnapshot } from '../../src/whois/snapshots';
import { createTestDatabase } from '../support/harness';

const options = { signal: new AbortController().signal };
const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

function record(domain: string, fields: Partial<WhoisRecord> = {}): WhoisRecord {
  return {
    domainName: domain,
    registrarName: 'Example Registrar, Inc.',
    createdDate: '2015-03-01T10:00:00Z',
    createdDateNormalized: '2015-03-01 10:00:00 UTC',
    domainAvailability: 'UNAVAILABLE',
    nameServers: { hostNames: ['ns1.example.net', 'ns2.example.net'] },
    ...fields,
  };
}

describe('local WHOIS provider', () => {
  let db: Kysely<Database>;
  let drop: () => Promise<void>;
  let local: WhoisProvider;

  before(async () => {
    const database = await createTestDatabase();
    drop = database.drop;
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: createPool(database.url, { max: 2 }) }) });
    await migrateToLatest(db);
    local = createLocalProvider(db);

    // acme.test: held by Old Corp 3 years ago, by New Corp now; a snapshot of 11 years ago.
    await recordSnapshot(db, record('acme.test', { registrant: { organization: 'Ancient Holdings', country: 'Iceland' } }), 'ingest', daysAgo(11 * 365 + 3));
    await recordSnapshot(db, record('acme.test', { registrant: { organization: 'Old Corp', country: 'Norway' } }), 'ingest', daysAgo(3 * 365));
    await recordSnapshot(db, record('acme.test', { registrant: { organization: 'New Corp', country: 'Norway' }, contactEmail: 'hostmaster@newcorp.test' }), 'ingest', daysAgo(10));
    await recordSnapshot(db, record('beta.test', { registrant: { organization: 'New Corp', country: 'Sweden' } }), 'ingest', daysAgo(5));
    await recordSnapshot(db, record('gamma.test', { registrant: { organization: 'New Corp', country: 'Norway' }, registrarName: 'Privacy Registrar' }), 'ingest', daysAgo(5));
    // Literal LIKE wildcards in the text: only a literal term matches them.
    await recordSnapshot(db, record('percent.test', { registrant: { organization: '100% Pure Ltd', name: 'a_b' } }), 'ingest', daysAgo(1));
    await recordSnapshot(db, record('digits.test', { registrant: { organization: '1000 Pure Ltd', name: 'axb' } }), 'ingest', daysAgo(1));
    await recordSnapshot(db, record('backslash.test', { registrant: { organization: 'Back\\Slash Ltd' } }), 'ingest', daysAgo(1));
  });

  after(async () => {
    await db?.destroy();
    await drop?.();
  });

  test('whois: the current snapshot with its age as of now; null for a domain never seen', async () => {
    const answer = await local.whois!('acme.test', options);
    assert.ok(answer);
    assert.equal(answer.source, 'local');
    assert.equal(answer.data.registrant?.organization, 'New Corp');
    assert.equal(answer.data.estimatedDomainAge, domainAgeDays('2015-03-01 10:00:00 UTC'));
    assert.equal(await local.whois!('unknown.test', options), null);
  });

  test('history: records of the last 10 years, newest first, with when each was seen', async () => {
    const answer = await local.history!('acme.test', options);
    assert.ok(answer);
    assert.equal(answer.data.recordsCount, 2);
    assert.deepEqual(
      answer.data.records.map((r) => r.registrantContact?.organization),
      ['New Corp', 'Old Corp'],
    );
    assert.equal(answer.data.records[0]!.createdDateISO8601, '2015-03-01T10:00:00.000Z');
    assert.ok(Date.parse(answer.data.records[1]!.audit!.createdDate) < Date.parse(answer.data.records[0]!.audit!.createdDate));
    const none = await local.history!('unknown.test', options);
    assert.deepEqual(none?.data, { recordsCount: 0, records: [] });
  });

  test('reverse WHOIS: include terms all present, exclude terms none, current or historic', async () => {
    const run = async (mode: 'current' | 'historic', include: string[], exclude: string[] = []) =>
      (await local.reverseWhois!({ mode, include, exclude }, null, options))!.data;
    assert.deepEqual((await run('current', ['new corp'])).domainsList, ['acme.test', 'beta.test', 'gamma.test']);
    assert.deepEqual((await run('current', ['new corp', 'norway'])).domainsList, ['acme.test', 'gamma.test']);
    assert.deepEqual((await run('current', ['new corp'], ['privacy', 'sweden'])).domainsList, ['acme.test']);
    // Old Corp held acme.test before: only the historic mode finds it, once.
    assert.deepEqual((await run('current', ['old corp'])).domainsList, []);
    assert.deepEqual(await run('historic', ['corp'], ['sweden', 'privacy']), { domainsCount: 1, domainsList: ['acme.test'], nextPageSearchAfter: null });
    // Exclude terms alone: every domain without them.
    assert.deepEqual((await run('current', [], ['corp', 'pure', 'slash'])).domainsList, []);
    assert.deepEqual((await run('current', [], ['new corp', 'pure'])).domainsList, ['backslash.test']);
  });

  test('reverse WHOIS terms are literal: % _ and \\ match only themselves', async () => {
    const run = async (include: string[]) => (await local.reverseWhois!({ mode: 'current', include, exclude: [] }, null, options))!.data.domainsList;
    assert.deepEqual(await run(['100%']), ['percent.test']);
    assert.deepEqual(await run(['%']), ['percent.test']);
    assert.deepEqual(await run(['a_b']), ['percent.test']);
    assert.deepEqual(await run(['_']), ['percent.test']);
    assert.deepEqual(await run(['back\\slash']), ['backslash.test']);
    assert.deepEqual(await run(['\\']), ['backslash.test']);
    assert.equal(containsPattern('a%b_c\\'), '%a\\%b\\_c\\\\%');
  });

  test('reverse WHOIS plan: rare terms looked up in the index, common and short ones checked on the rows found', () => {
    const sample = [...Array(90).fill('godaddy\nunited states'), ...Array(9).fill('acme ltd\nunited states'), 'acme ltd\njane@acme.test'];
    assert.deepEqual(planTerms({ mode: 'current', include: ['godaddy', 'jane@acme.test', 'acme ltd', 'united states'], exclude: ['x'] }, sample), {
      mode: 'current',
      indexed: ['jane@acme.test'],
      checked: ['godaddy', 'acme ltd', 'united states'],
      exclude: ['x'],
    });
    // Only common terms: the rarest of them still narrows the rows.
    assert.deepEqual(planTerms({ mode: 'historic', include: ['united states', 'godaddy'], exclude: [] }, sample).indexed, ['godaddy']);
    // No trigram in "us" or "a.b": the index cannot help, every term is checked.
    assert.deepEqual(planTerms({ mode: 'current', include: ['us', 'a.b'], exclude: [] }, sample), { mode: 'current', indexed: [], checked: ['us', 'a.b'], exclude: [] });
    // Without a sample every term counts as rare.
    assert.deepEqual(planTerms({ mode: 'current', include: ['godaddy', 'acme'], exclude: [] }, []).indexed, ['godaddy', 'acme']);
  });

  test('reverse WHOIS: at most 10,000 domains, nextPageSearchAfter continues after the last', async () => {
    const total = REVERSE_WHOIS_MAX_RESULTS + 5;
    await sql`
      insert into whois_snapshots (domain, observed_at, last_observed_at, source, record, search_text, content_sha256, is_current)
      select 'bulk' || lpad(g::text, 6, '0') || '.test', now(), now(), 'test', '{}'::jsonb, 'bulk registrant', sha256(g::text::bytea), true
      from generate_series(1, ${total}) g`.execute(db);
    const first = (await local.reverseWhois!({ mode: 'current', include: ['bulk registrant'], exclude: [] }, null, options))!.data;
    assert.equal(first.domainsCount, REVERSE_WHOIS_MAX_RESULTS);
    assert.equal(first.domainsList[0], 'bulk000001.test');
    assert.equal(first.nextPageSearchAfter, 'bulk010000.test');
    const rest = (await local.reverseWhois!({ mode: 'current', include: ['bulk registrant'], exclude: [] }, first.nextPageSearchAfter!, options))!.data;
    assert.deepEqual(rest, { domainsCount: 5, domainsList: ['bulk010001.test', 'bulk010002.test', 'bulk010003.test', 'bulk010004.test', 'bulk010005.test'], nextPageSearchAfter: null });
  });

  test('reverse IP: pages of 300 by name with a `from` cursor, first/last seen in epoch seconds', async () => {
    const seen = new Date('2024-05-01T00:00:00Z');
    const rows = Array.from({ length: 650 }, (_, i) => ({
      rrname_rev: reverseName(`host${String(i).padStart(3, '0')}.shared.test`),
      rrtype: 'A',
      rdata: '192.0.2.7',
      first_seen: seen,
      last_seen: new Date(seen.getTime() + i * 1000),
      source: 'test',
    }));
    await db.insertInto('pdns').values(rows).execute();
    await db.insertInto('pdns').values([
      { rrname_rev: reverseName('other.test'), rrtype: 'A', rdata: '192.0.2.70', first_seen: seen, last_seen: seen, source: 'test' },
      { rrname_rev: reverseName('mail.shared.test'), rrtype: 'MX', rdata: '192.0.2.7', first_seen: seen, last_seen: seen, source: 'test' },
    ]).execute();

    const names: string[] = [];
    let from: string | null = null;
    const sizes: number[] = [];
    for (;;) {
      const page: ReverseLookupAnswer = (await local.reverse!('ip', '192.0.2.7', from, options))!.data;
      assert.equal(page.current_page, from ?? '0');
      sizes.push(page.size);
      if (page.size === 0) break;
      names.push(...page.result.map((r) => r.name));
      from = page.result[page.result.length - 1]!.name;
    }
    assert.deepEqual(sizes, [300, 300, 50, 0]);
    assert.deepEqual(names, rows.map((r) => reverseName(r.rrname_rev)));
    const first = (await local.reverse!('ip', '192.0.2.7', null, options))!.data.result[1]!;
    assert.deepEqual(first, { name: 'host001.shared.test', first_seen: seen.getTime() / 1000, last_visit: seen.getTime() / 1000 + 1 });
  });

  test('reverse IP over IPv6 finds the compressed lower-case form; MX and NS by bare host', async () => {
    const seen = new Date('2024-05-01T00:00:00Z');
    await db.insertInto('pdns').values([
      { rrname_rev: reverseName('v6.example.test'), rrtype: 'AAAA', rdata: '2001:db8::1', first_seen: seen, last_seen: seen, source: 'test' },
      { rrname_rev: reverseName('v6b.example.test'), rrtype: 'AAAA', rdata: '2001:db8::1:0:0:1', first_seen: seen, last_seen: seen, source: 'test' },
      { rrname_rev: reverseName('example.test'), rrtype: 'MX', rdata: 'mx1.mail.test', first_seen: seen, last_seen: seen, source: 'test' },
      { rrname_rev: reverseName('example.test'), rrtype: 'NS', rdata: 'ns1.dns.test', first_seen: seen, last_seen: seen, source: 'test' },
      { rrname_rev: reverseName('other.test'), rrtype: 'NS', rdata: 'mx1.mail.test', first_seen: seen, last_seen: seen, source: 'test' },
    ]).execute();
    const names = async (kind: 'ip' | 'mx' | 'ns', value: string) => (await local.reverse!(kind, value, null, options))!.data.result.map((r) => r.name);
    assert.deepEqual(await names('ip', '2001:DB8:0:0:0:0:0:1'), ['v6.example.test']);
    assert.deepEqual(await names('ip', '2001:0db8:0000:0000:0001:0000:0000:0001'), ['v6b.example.test']);
    assert.deepEqual(normaliseIp('2001:DB8::0:1'), { rrtype: 'AAAA', rdata: '2001:db8::1' });
    assert.deepEqual(normaliseIp('192.0.2.7'), { rrtype: 'A', rdata: '192.0.2.7' });
    assert.deepEqual(await names('mx', 'MX1.Mail.test.'), ['example.test']);
    assert.deepEqual(await names('ns', 'ns1.dns.test'), ['example.test']);
    assert.deepEqual(await names('ns', 'mx1.mail.test'), ['other.test']);
    assert.deepEqual(await names('ip', '192.0.2.99'), []);
  });

  test('subdomains: every name strictly under the domain, never a sibling like example.testing', async () => {
    const seen = new Date('2023-01-02T03:04:05Z');
    const hosts = ['example.test', 'www.example.test', 'a.b.example.test', 'mail.example.test', 'www.example.testing', 'example.testing', 'notexample.test', 'www.test'];
    await db
      .insertInto('subdomains')
      .values(hosts.map((h) => ({ name_rev: reverseName(h), first_seen: seen, last_seen: seen })))
      .execute();
    const answer = (await local.subdomains!('Example.TEST.', options))!.data;
    assert.equal(answer.search, 'example.test');
    assert.deepEqual(answer.result.records.map((r) => r.domain), ['a.b.example.test', 'mail.example.test', 'www.example.test']);
    assert.equal(answer.result.count, 3);
    assert.deepEqual(answer.result.records[0], { domain: 'a.b.example.test', firstSeen: seen.getTime() / 1000, lastSeen: seen.getTime() / 1000 });
    assert.deepEqual((await local.subdomains!('example.testing', options))!.data.result.records.map((r) => r.domain), ['www.example.testing']);
    assert.deepEqual((await local.subdomains!('nothing.test', options))!.data.result, { count: 0, records: [] });
  });

  test('an aborted request and a failing store are provider failures', async () => {
    const aborted = new AbortController();
    aborted.abort();
    await assert.rejects(local.whois!('acme.test', { signal: aborted.signal }), { name: 'ProviderError', provider: 'local', reason: 'timeout' });
    const closed = new Kysely<Database>({ dialect: new PostgresDialect({ pool: createPool('postgres://nobody@127.0.0.1:1/none', { max: 1 }) }) });
    await assert.rejects(createLocalProvider(closed).subdomains!('example.test', options), { name: 'ProviderError', provider: 'local', reason: 'network' });
    await closed.destroy();
  });
});
