/**
 * The Breach API v3 and Pwned Passwords page's samples run as pasted
 * (web/src/features/breach-api-docs/lib): every call of the page, in each language (Node.js
 * and cURL always, Python when python3 is here: its samples use only the standard library),
 * sent by its sample to a test server holding a breach with the sample account and password,
 * by a subscribed account with a real key and example.com verified:
 * - Pwned Passwords: Python and Node.js print the count of P@ssw0rd by SHA-1 and by NTLM
 *   (two records hold it), with padding asked; cURL prints the wire format (upper-case
 *   suffixes, CRLF, padded to at least 800 lines);
 * - every /api/v3 call prints what the route answers, in the documented shape (the same
 *   fields, the same JSON types), finds the docs' breach where the docs say it does, and a
 *   404 that means "nothing found" prints the empty answer (cURL prints the error body);
 * - the page's `hibp` client snippet, with only its import resolved here, prints the breach
 *   and the count.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BREACH_CALLS, BREACH_EXAMPLE, RANGE_CALLS, SAMPLE_ACCOUNT, SAMPLE_DOMAIN, V3_CALLS, type BreachCall, type V3Call } from '../../../web/src/features/breach-api-docs/lib/breach-calls';
import {
  hibpClientSample,
  rangeSample,
  SAMPLE_NTLM,
  SAMPLE_PASSWORD,
  SAMPLE_SHA1,
  SAMPLE_USER_AGENT,
  v3Sample,
  type BreachLanguage,
  type BreachSampleContext,
} from '../../../web/src/features/breach-api-docs/lib/breach-samples';
import { markVerified } from '../../src/monitoring/domain-verification-repository';
import { sql, startTestServer, type TestServer } from '../support/harness';
import { has, run } from '../support/doc-samples';

const LANGUAGES: { language: BreachLanguage; skip: string | false }[] = [
  { language: 'nodejs', skip: false },
  { language: 'curl', skip: has('curl', ['--version']) ? false : 'curl is missing' },
  { language: 'python', skip: has('python3', ['--version']) ? false : 'python3 is not installed' },
];

const SHOP = 'Example Shop';
const STEALER = 'Example Stealer Log';
/** The website of the stealer-log line, under the verified domain. */
const STEALER_HOST = `shop.${SAMPLE_DOMAIN}`;
/** Fields the service's client types as "a number or null" (SubscribedDomain). */
const NULLABLE = new Set(['PwnCount', 'PwnCountExcludingSpamLists', 'PwnCountExcludingSpamListsAtLastSubscriptionRenewal', 'NextSubscriptionRenewal', 'SubscribedUntil']);

/** `actual` has the documented shape: the same keys, the same JSON types; array items like the first documented one. */
function assertShape(actual: unknown, documented: unknown, where: string): void {
  if (documented === null) return;
  if (Array.isArray(documented)) {
    assert.ok(Array.isArray(actual), `${where} is an array: ${JSON.stringify(actual)}`);
    actual.forEach((item, i) => assertShape(item, documented[0], `${where}[${i}]`));
    return;
  }
  if (documented !== null && typeof documented === 'object') {
    assert.ok(actual !== null && typeof actual === 'object' && !Array.isArray(actual), `${where} is an object: ${JSON.stringify(actual)}`);
    const values = Object.values(documented as Record<string, unknown>);
    // An alias map ({alias: [names]}): any keys, each value like the documented ones.
    if (values.length > 0 && values.every(Array.isArray) && !('Name' in documented)) {
      for (const [key, value] of Object.entries(actual as Record<string, unknown>)) assertShape(value, values[0], `${where}.${key}`);
      return;
    }
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(documented).sort(), `${where}'s fields`);
    for (const [key, value] of Object.entries(documented as Record<string, unknown>)) {
      const got = (actual as Record<string, unknown>)[key];
      if (got === null && NULLABLE.has(key)) continue;
      assertShape(got, value, `${where}.${key}`);
    }
    return;
  }
  assert.equal(typeof actual, typeof documented, `${where}: ${JSON.stringify(actual)}`);
}

const call = (id: string): BreachCall => {
  const found = BREACH_CALLS.find((c) => c.id === id);
  assert.ok(found, id);
  return found;
};
const v3 = (id: string) => call(id) as V3Call;

describe('Breach API v3 and Pwned Passwords samples against a server', () => {
  let server: TestServer;
  let dir: string;
  let key: string;
  const ran = new Set<string>();
  const context = (): BreachSampleContext => ({ baseUrl: server.url, key });

  /** Runs one sample as saved from the page; returns what it printed and its exit code. Runs are spaced: the key's limit is 10 a second. */
  let lastRun = 0;
  async function runSample(language: BreachLanguage, sample: BreachCall, name = sample.id): Promise<{ stdout: string; stderr: string; code: number }> {
    const wait = lastRun + 250 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    lastRun = Date.now();
    ran.add(sample.id);
    const code = sample.kind === 'range' ? rangeSample(language, context(), sample) : v3Sample(language, context(), sample);
    const runners: Record<BreachLanguage, [file: string, command: string]> = {
      nodejs: [`${name}.mjs`, process.execPath],
      python: [`${name}.py`, 'python3'],
      curl: [`${name}.sh`, 'sh'],
    };
    const [file, command] = runners[language];
    fs.writeFileSync(path.join(dir, file), code);
    try {
      return { ...(await run(command, [file], { cwd: dir, timeout: 60_000 })), code: 0 };
    } catch (error) {
      const failed = error as { code?: unknown; stdout?: string; stderr?: string };
      if (typeof failed.code !== 'number') throw error;
      return { stdout: failed.stdout ?? '', stderr: failed.stderr ?? '', code: failed.code };
    }
  }
  /** What a sample printed, as JSON; it must have succeeded. */
  const json = async (language: BreachLanguage, sample: BreachCall, name?: string): Promise<unknown> => {
    const { stdout, stderr, code } = await runSample(language, sample, name);
    assert.equal(code, 0, `${language} ${sample.id} failed: ${stderr}`);
    try {
      return JSON.parse(stdout);
    } catch {
      throw new Error(`${language} ${sample.id} printed: ${stdout}`);
    }
  };
  /** A sample whose call answers 404: Python and Node.js print the empty answer; cURL fails with the status and prints nothing. */
  const notFound = async (language: BreachLanguage, sample: V3Call, name?: string): Promise<void> => {
    const { stdout, stderr, code } = await runSample(language, sample, name);
    if (language === 'curl') {
      assert.deepEqual({ stdout, code }, { stdout: '', code: 22 }, `${sample.id}: ${stderr}`);
      assert.match(stderr, /\b404\b/);
    } else {
      assert.equal(code, 0, `${language} ${sample.id} failed: ${stderr}`);
      assert.deepEqual(JSON.parse(stdout), JSON.parse(sample.notFound!), `${language} ${sample.id}`);
    }
  };
  /** The route's own answer to the sample's request. */
  const direct = async (sample: V3Call): Promise<{ status: number; body: unknown }> => {
    const response = await fetch(`${server.url}${sample.path}`, { headers: { 'hibp-api-key': key, 'user-agent': SAMPLE_USER_AGENT } });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  /** The breaches of the catalogue, as the route answers them. */
  const catalogue = async (): Promise<{ Name: string; Title: string; IsStealerLog: boolean }[]> => {
    const { status, body } = await direct(v3('v3-breaches'));
    assert.equal(status, 200, `GET /api/v3/breaches: ${JSON.stringify(body)}`);
    return body as { Name: string; Title: string; IsStealerLog: boolean }[];
  };
  /**
   * Marks the stealer-log well as one (the operator's `well:update` does the same; a well
   * ingested from `URL:login:password` lines is marked at ingest), or unmarks it.
   */
  const setStealerLog = async (on: boolean) => {
    await sql`update data_wells set is_stealer_log = ${on} where name = ${STEALER}`.execute(server.runtime.db);
  };
  const shopName = async (): Promise<string> => {
    const body = await catalogue();
    const shop = body.find((b) => b.Title === SHOP);
    assert.ok(shop, `${SHOP} is in the catalogue: ${JSON.stringify(body)}`);
    return shop.Name;
  };

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lw-breach-api-samples-'));
    server = await startTestServer();
    await server.ingest(SHOP, [
      { email: SAMPLE_ACCOUNT, username: 'name', password: SAMPLE_PASSWORD },
      { email: `j.doe@${SAMPLE_DOMAIN}`, username: 'j_doe', password: SAMPLE_PASSWORD },
      { email: 'someone@example.org', password: 'not-the-sample' },
    ]);
    await server.ingest(STEALER, [{ url: `https://${STEALER_HOST}/login`, email: SAMPLE_ACCOUNT, password: 'stolen-pass' }]);
    const user = await server.createUser({ searchDays: 30, apiKey: true });
    key = user.apiKey!;
    await markVerified(server.runtime.db, { userId: user.id, domain: SAMPLE_DOMAIN, method: 'operator', newToken: () => randomBytes(16).toString('hex') });
  });
  after(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await server?.close();
  });

  for (const { language, skip } of LANGUAGES) {
    test(`${language}: Pwned Passwords by SHA-1 and by NTLM, padded`, { skip }, async () => {
      for (const sample of RANGE_CALLS) {
        const [digest, suffixLength] = sample.mode === 'ntlm' ? [SAMPLE_NTLM, 27] : [SAMPLE_SHA1, 35];
        const { stdout, stderr, code } = await runSample(language, sample);
        assert.equal(code, 0, `${language} ${sample.id} failed: ${stderr}`);
        if (language !== 'curl') {
          assert.equal(stdout.trim(), 'Seen 2 times', `${sample.mode}: two records hold ${SAMPLE_PASSWORD}`);
          continue;
        }
        const lines = stdout.split('\r\n').filter(Boolean);
        assert.ok(!stdout.replace(/\r\n/g, '').includes('\n'), 'every line ends in CRLF');
        assert.ok(lines.length >= 800 && lines.length <= 1000, `${sample.mode}: padded to ${lines.length} lines`);
        const shape = new RegExp(`^[0-9A-F]{${suffixLength}}:\\d+$`);
        for (const line of lines) assert.match(line, shape);
        assert.ok(lines.includes(`${digest.slice(5)}:2`), `${sample.mode}: the sample's line`);
        assert.equal(new Set(lines.map((line) => line.split(':')[0])).size, lines.length, 'no suffix twice');
      }
    });

    test(`${language}: the catalogue without a key`, { skip }, async () => {
      const breaches = (await json(language, v3('v3-breaches'))) as { Name: string; Title: string }[];
      assertShape(breaches, v3('v3-breaches').response, 'breaches');
      assert.deepEqual(breaches, (await direct(v3('v3-breaches'))).body);
      const shop = breaches.find((b) => b.Title === SHOP);
      assert.ok(shop, SHOP);
      const one = await json(language, { ...v3('v3-breach'), path: `/api/v3/breach/${shop.Name}` });
      assertShape(one, v3('v3-breach').response, 'breach');
      assert.deepEqual(one, shop);
      const latest = await json(language, v3('v3-latestbreach'));
      assertShape(latest, v3('v3-latestbreach').response, 'latestbreach');
      assert.deepEqual(latest, (await direct(v3('v3-latestbreach'))).body);
      const classes = (await json(language, v3('v3-dataclasses'))) as string[];
      assertShape(classes, v3('v3-dataclasses').response, 'dataclasses');
      assert.deepEqual(classes, [...classes].sort());
      for (const name of BREACH_EXAMPLE.DataClasses) assert.ok(classes.includes(name), name);
    });

    test(`${language}: the searches with the key`, { skip }, async () => {
      const name = await shopName();
      const account = (await json(language, v3('v3-breachedaccount'))) as { Name: string }[];
      assertShape(account, v3('v3-breachedaccount').response, 'breachedaccount');
      assert.ok(account.some((b) => b.Name === name), `${SAMPLE_ACCOUNT} is in ${name}`);
      await notFound(language, { ...v3('v3-breachedaccount'), path: '/api/v3/breachedaccount/nobody.here@example.org?truncateResponse=false' }, 'nobody');

      const domain = (await json(language, v3('v3-breacheddomain'))) as Record<string, string[]>;
      assertShape(domain, v3('v3-breacheddomain').response, 'breacheddomain');
      assert.deepEqual(domain, (await direct(v3('v3-breacheddomain'))).body);
      assert.ok(domain.name?.includes(name) && domain['j.doe']?.includes(name), JSON.stringify(domain));

      const subscribed = (await json(language, v3('v3-subscribeddomains'))) as { DomainName: string }[];
      assertShape(subscribed, v3('v3-subscribeddomains').response, 'subscribeddomains');
      assert.deepEqual(subscribed.map((d) => d.DomainName), [SAMPLE_DOMAIN]);
      const status = await json(language, v3('v3-subscription-status'));
      assertShape(status, v3('v3-subscription-status').response, 'subscription/status');

      await notFound(language, v3('v3-pasteaccount'));
      assert.deepEqual(await direct(v3('v3-pasteaccount')), { status: 404, body: null });
    });

    test(`${language}: the stealer-log searches`, { skip }, async () => {
      // Until a well is a stealer log, the stealer-log calls find nothing.
      await notFound(language, v3('v3-stealerlogsbyemail'), 'stealer-none');
      await setStealerLog(true);
      try {
        const byEmail = await json(language, v3('v3-stealerlogsbyemail'));
        assertShape(byEmail, v3('v3-stealerlogsbyemail').response, 'stealerlogsbyemail');
        assert.deepEqual(byEmail, [STEALER_HOST]);
        const byWebsite = await json(language, v3('v3-stealerlogsbywebsitedomain'));
        assertShape(byWebsite, v3('v3-stealerlogsbywebsitedomain').response, 'stealerlogsbywebsitedomain');
        assert.deepEqual(byWebsite, [SAMPLE_ACCOUNT]);
        const byEmailDomain = await json(language, v3('v3-stealerlogsbyemaildomain'));
        assertShape(byEmailDomain, v3('v3-stealerlogsbyemaildomain').response, 'stealerlogsbyemaildomain');
        assert.deepEqual(byEmailDomain, { name: [STEALER_HOST] });
      } finally {
        await setStealerLog(false);
      }
    });
  }

  test('the hibp client snippet, pointed at this server by baseUrl, finds the breach and the password', async () => {
    const name = await shopName();
    const hibp = pathToFileURL(createRequire(import.meta.url).resolve('hibp')).href;
    const code = hibpClientSample(context());
    assert.ok(code.includes(`from 'hibp'`));
    fs.writeFileSync(path.join(dir, 'hibp-client.mjs'), code.replace(`from 'hibp'`, `from '${hibp}'`));
    const { stdout } = await run(process.execPath, ['hibp-client.mjs'], { cwd: dir, timeout: 60_000 });
    const [breachesLine, countLine] = stdout.trim().split('\n');
    assert.ok(breachesLine!.startsWith('Breaches: ') && breachesLine!.slice(10).split(', ').includes(name), stdout);
    assert.equal(countLine, `${SAMPLE_PASSWORD} seen 2 times`);
  });

  test('every documented call was run', () => {
    assert.deepEqual([...ran].sort(), BREACH_CALLS.map((c) => c.id).sort());
    assert.deepEqual(
      V3_CALLS.map((c) => c.route.replace('GET /api/v3/', '')),
      [
        'breaches',
        'breach/{name}',
        'latestbreach',
        'dataclasses',
        'breachedaccount/{account}',
        'breacheddomain/{domain}',
        'subscribeddomains',
        'stealerlogsbyemail/{email}',
        'stealerlogsbywebsitedomain/{domain}',
        'stealerlogsbyemaildomain/{domain}',
        'pasteaccount/{account}',
        'subscription/status',
      ],
    );
  });
});
