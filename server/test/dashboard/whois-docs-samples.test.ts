/**
 * The WHOIS API documentation's samples run as pasted (web/src/features/api-docs/lib/whois-calls.ts):
 * every /v2/whois call of the docs, in each language (Node.js and cURL always, Python with
 * `requests`, Go when go is here), sent by its sample to a test server with a real key over a
 * local store holding the docs' example values, answers with the documented frame (the
 * same top-level fields; inside `data` only documented fields, of the documented JSON types),
 * finds what the docs say it finds, and takes the documented credits.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Language, type SampleContext } from '../../../web/src/lib/api-samples';
import {
  SAMPLE_DOMAIN,
  SAMPLE_IP,
  SAMPLE_MX,
  SAMPLE_NS,
  WHOIS_CALLS,
  WHOIS_CREDITS_CALL,
  WHOIS_ERRORS,
  WHOIS_RECORD_EXAMPLE,
} from '../../../web/src/features/api-docs/lib/whois-calls';
import type { DocCall } from '../../../web/src/features/monitoring-docs/lib/v2-calls';
import { V2_WHOIS_TYPES, WHOIS_MESSAGES, whoisCost, toolOfV2Type, type V2WhoisType, type WhoisRecord } from '../../src/common/whois-rules';
import { reverseName } from '../../src/whois/names';
import { recordSnapshot } from '../../src/whois/snapshots';
import { startTestServer, type TestServer } from '../support/harness';
import { sampleLanguages, sampleRunner } from '../support/doc-samples';

const LANGUAGES = sampleLanguages();
const runSample = sampleRunner();

/**
 * `actual` is described by `documented`: an object holds only documented fields, each of
 * the documented JSON type (null documents "null or a value"); array items are checked
 * against the first documented item.
 */
function assertDocumented(actual: unknown, documented: unknown, where: string): void {
  if (documented === null || actual === null) return;
  if (Array.isArray(documented)) {
    assert.ok(Array.isArray(actual), `${where} is an array`);
    if (documented.length > 0) actual.forEach((item, i) => assertDocumented(item, documented[0], `${where}[${i}]`));
    return;
  }
  if (typeof documented === 'object') {
    assert.ok(typeof actual === 'object' && !Array.isArray(actual), `${where} is an object: ${JSON.stringify(actual)}`);
    const known = Object.keys(documented);
    for (const [key, value] of Object.entries(actual as Record<string, unknown>)) {
      assert.ok(known.includes(key), `${where}.${key} is documented`);
      assertDocumented(value, (documented as Record<string, unknown>)[key], `${where}.${key}`);
    }
    return;
  }
  assert.equal(typeof actual, typeof documented, `${where}: ${JSON.stringify(actual)}`);
}

const typeOf = (call: DocCall) => (call.body as { search_type: V2WhoisType }).search_type;

/** What each documented call finds in the store the test fills. */
const FOUND: Record<V2WhoisType, (data: never) => unknown> = {
  whois: (data: { WhoisRecord: WhoisRecord }) => data.WhoisRecord.domainName,
  'whois-history': (data: { records: { domainName: string }[] }) => data.records.map((r) => r.domainName),
  'reverse-whois': (data: { domainsList: string[] }) => data.domainsList,
  'reverse-ip': (data: { result: { name: string }[] }) => data.result.map((r) => r.name).sort(),
  'reverse-mx': (data: { result: { name: string }[] }) => data.result.map((r) => r.name),
  'reverse-ns': (data: { result: { name: string }[] }) => data.result.map((r) => r.name),
  'subdomain-scan': (data: { result: { records: { domain: string }[] } }) => data.result.records.map((r) => r.domain).sort(),
};
const EXPECTED: Record<V2WhoisType, unknown> = {
  whois: SAMPLE_DOMAIN,
  'whois-history': [SAMPLE_DOMAIN],
  'reverse-whois': [SAMPLE_DOMAIN],
  'reverse-ip': [SAMPLE_DOMAIN, 'example.net'],
  'reverse-mx': [SAMPLE_DOMAIN],
  'reverse-ns': [SAMPLE_DOMAIN],
  'subdomain-scan': [`mail.${SAMPLE_DOMAIN}`, `www.${SAMPLE_DOMAIN}`],
};

const START_CREDITS = 100;
const HISTORY_COST_MINUS_ONE = whoisCost('whois_history') - 1;

describe('WHOIS API samples against a server', () => {
  let server: TestServer;
  let dir: string;
  const keys = new Map<Language, string>();
  const context = (language: Language): SampleContext => ({
    baseUrl: server.url,
    header: server.runtime.config.apiKeyHeader,
    key: keys.get(language)!,
  });

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-whois-samples-'));
    server = await startTestServer();
    const db = server.runtime.db;
    // The docs' own example record is the store's record of the sample domain.
    const { estimatedDomainAge: _age, ...stored } = WHOIS_RECORD_EXAMPLE;
    await recordSnapshot(db, stored as WhoisRecord, 'local');
    const seen = { first_seen: new Date('2022-05-01T00:00:00Z'), last_seen: new Date('2025-04-23T00:00:00Z'), count: 1, source: 'docs' };
    await db
      .insertInto('pdns')
      .values([
        { rrname_rev: reverseName(SAMPLE_DOMAIN), rrtype: 'A', rdata: SAMPLE_IP, ...seen },
        { rrname_rev: reverseName('example.net'), rrtype: 'A', rdata: SAMPLE_IP, ...seen },
        { rrname_rev: reverseName(SAMPLE_DOMAIN), rrtype: 'MX', rdata: SAMPLE_MX, ...seen },
        { rrname_rev: reverseName(SAMPLE_DOMAIN), rrtype: 'NS', rdata: SAMPLE_NS, ...seen },
      ])
      .execute();
    await db
      .insertInto('subdomains')
      .values(
        [`mail.${SAMPLE_DOMAIN}`, `www.${SAMPLE_DOMAIN}`].map((name) => ({
          name_rev: reverseName(name),
          first_seen: seen.first_seen,
          last_seen: seen.last_seen,
          sources: ['docs'],
        })),
      )
      .execute();
    for (const { language } of LANGUAGES) {
      const user = await server.createUser({ whoisCredits: START_CREDITS, apiKey: true });
      keys.set(language, user.apiKey!);
    }
  });
  after(async () => {
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the docs name one call per search_type, with the documented search_type in its answer', () => {
    assert.deepEqual(WHOIS_CALLS.map(typeOf), [...V2_WHOIS_TYPES]);
    for (const call of WHOIS_CALLS) assert.equal((call.response as { search_type: string }).search_type, typeOf(call));
  });

  test('the documented errors: a bad value (400) and too few credits (403) answer the documented text', async () => {
    const { apiKey } = await server.createUser({ whoisCredits: HISTORY_COST_MINUS_ONE, apiKey: true });
    const post = async (body: object) => {
      const response = await fetch(`${server.url}/v2/whois/search`, {
        method: 'POST',
        headers: { [server.runtime.config.apiKeyHeader]: apiKey!, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as { error?: string } };
    };
    const documented = new Map(WHOIS_ERRORS.map(([status, meaning, error]) => [status, { meaning, error }]));
    const bad = await post({ search_type: 'whois', domain: 'not a domain' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, WHOIS_MESSAGES.invalidDomain);
    assert.ok(documented.get('400')!.meaning.includes(bad.body.error!), 'the 400 row quotes it');
    const refused = await post({ search_type: 'whois-history', domain: SAMPLE_DOMAIN });
    assert.deepEqual(refused, { status: 403, body: { error: documented.get('403')!.error } });
  });

  for (const { language, skip } of LANGUAGES) {
    test(`${language}: every search_type and the balance`, { skip }, async () => {
      let credits = START_CREDITS;
      for (const call of WHOIS_CALLS) {
        const type = typeOf(call);
        const answer = (await runSample(dir, language, context(language), call, type)) as Record<string, unknown>;
        const documented = call.response as Record<string, unknown>;
        assert.deepEqual(Object.keys(answer).sort(), Object.keys(documented).sort(), `${type}: the answer's fields`);
        assertDocumented(answer, documented, type);
        assert.equal(answer.search_type, type);
        assert.equal(answer.source, 'local', type);
        assert.deepEqual(FOUND[type](answer.data as never), EXPECTED[type], `${type} finds the docs' example`);
        credits -= whoisCost(toolOfV2Type(type));
        assert.equal(answer.remaining_credits, credits, `${type} takes ${whoisCost(toolOfV2Type(type))}`);
      }
      // The sample record's fields are exactly the documented record's.
      const record = (await runSample(dir, language, context(language), WHOIS_CALLS[0]!, 'whois-again')) as { data: { WhoisRecord: { status: unknown } } };
      assert.deepEqual(Object.keys(record.data), ['WhoisRecord']);
      assert.deepEqual(Object.keys(record.data.WhoisRecord).sort(), Object.keys(WHOIS_RECORD_EXAMPLE).sort());
      assert.equal(record.data.WhoisRecord.status, WHOIS_RECORD_EXAMPLE.status.join(' '), 'status is one string, as WhoisXML-style clients decode it');
      credits -= 1;
      const balance = await runSample(dir, language, context(language), WHOIS_CREDITS_CALL, 'credits');
      assert.deepEqual(Object.keys(balance as object), Object.keys(WHOIS_CREDITS_CALL.response as object));
      assert.deepEqual(balance, { whois_credits: credits });
    });
  }
});
