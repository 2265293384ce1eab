/**
 * The Breach API v3's keyed calls (server/src/breach-api/v3-account-routes.ts) against a real
 * server, PostgreSQL and engine with ingested wells: the guard's codes and texts, every
 * route's statuses, the sensitive and unverified-domain rules, booleans in any case,
 * URL-encoded accounts, every call counted as a search without a credit, and no searched
 * value in the logs. The published `hibp` client against it, and the 429 (a slow bucket):
 * account-hibp-client.test.ts.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { sql } from 'kysely';
import { startTestServer, type TestServer } from '../support/harness';
import { freshIp } from '../support/helpers';
import { markDomainVerified } from '../../src/monitoring/domain-verification-service';
import { breachModelsByWellName } from '../../src/datawells/breach-model-service';
import { V3_MESSAGES } from '../../src/breach-api/v3-guard';
import { BAD_ACCOUNT } from '../../src/breach-api/v3-account-reads';
import { DOMAIN_NOT_VERIFIED } from '../../src/breach-api/v3-keyed-context';
import { selectBreaches } from '../../src/breach-api/v3-account-service';
import type { BreachModel } from '../../src/datawells/breach-model-service';
import { seedV3, stealerFlagged, type V3Seed } from './account-fixtures';

let server: TestServer;
let seed: V3Seed;

before(async () => {
  // Limits far away: the 429 is account-hibp-client.test.ts's, on a slow bucket.
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1', API_RATE_BURST: '1000', API_RATE_PER_SECOND: '1000' } });
  seed = await seedV3(server);
});
after(() => server.close());

type V3Reply = { status: number; body: any; text: string; headers: Headers };

/** GET under /api/v3 with the key (or none), a user agent and a fresh client address. */
async function v3(path: string, options: { key?: string | null; ip?: string } = {}): Promise<V3Reply> {
  const key = options.key === undefined ? seed.owner.apiKey : options.key;
  const headers: Record<string, string> = { 'user-agent': 'leakwell-test', 'x-forwarded-for': options.ip ?? freshIp() };
  if (key !== null) headers['hibp-api-key'] = key;
  const response = await fetch(`${server.url}/api/v3${path}`, { headers });
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON (an empty 404) */
  }
  return { status: response.status, body, text, headers: response.headers };
}

function refused(reply: V3Reply, status: number, message?: string | RegExp) {
  assert.equal(reply.status, status, reply.text);
  assert.equal(reply.body.statusCode, status);
  if (typeof message === 'string') assert.equal(reply.body.message, message);
  else if (message) assert.match(reply.body.message, message);
}

/** The Names the catalogue gives these wells, sorted. */
async function names(...titles: string[]): Promise<string[]> {
  const models = await breachModelsByWellName(server.runtime.db, titles);
  return titles.map((t) => models.get(t)!.Name).sort();
}

async function searchesToday(userId: string): Promise<{ searches: number; credits: number }> {
  await server.runtime.app.searchMeter.flush();
  const { rows } = await sql<{ searches: number | null; credits: number }>`
    select (select searches from search_counts where user_id = ${userId} and day = current_date) as searches, search_credits as credits
    from users where id = ${userId}`.execute(server.runtime.db);
  return { searches: rows[0]!.searches ?? 0, credits: rows[0]!.credits };
}

describe('guard', () => {
  test('every keyed route refuses a missing, malformed or unknown key with 401 and the service text', async () => {
    const paths = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, { get?: { security?: object[] } }> };
    const keyed = Object.entries(paths.paths).filter(([p, ops]) => p.startsWith('/api/v3/') && JSON.stringify(ops.get?.security ?? []).includes('hibpApiKey'));
    assert.equal(keyed.length, 8, keyed.map(([p]) => p).join(' '));
    for (const [path] of keyed) {
      const url = path.slice('/api/v3'.length).replace(/\{[^}]+\}/g, 'alice@acme-v3.test');
      const missing = await v3(url, { key: null });
      assert.equal(missing.status, 401, `${url}: ${missing.text}`);
      refused(missing, 401, V3_MESSAGES.missingKey);
      refused(await v3(url, { key: 'not-a-key' }), 401, V3_MESSAGES.malformedKey);
      refused(await v3(url, { key: 'f'.repeat(48) }), 401, V3_MESSAGES.invalidKey);
    }
    // The key is read in any case, trimmed.
    assert.equal((await v3('/subscription/status', { key: ` ${seed.owner.apiKey.toUpperCase()} ` })).status, 200);
  });

  test('403 without a user agent; 401 for an account without a search subscription', async () => {
    const status = await new Promise<{ code: number; body: string }>((resolve, reject) => {
      // node:http sends no user-agent unless told to.
      const req = http.get(`${server.url}/api/v3/subscription/status`, { headers: { 'hibp-api-key': seed.owner.apiKey } }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ code: res.statusCode!, body }));
      });
      req.on('error', reject);
    });
    assert.equal(status.code, 403);
    assert.deepEqual(JSON.parse(status.body), { statusCode: 403, message: V3_MESSAGES.noUserAgent });
    refused(await v3('/breachedaccount/alice@acme-v3.test', { key: seed.unsubscribed.apiKey }), 401, V3_MESSAGES.noSubscription);
    refused(await v3('/subscription/status', { key: seed.unsubscribed.apiKey }), 401, V3_MESSAGES.noSubscription);
  });
});

describe('breachedaccount', () => {
  test('the wells holding an address, names only by default, never a sensitive one', async () => {
    const expected = await names('V3 Forum', 'V3 Shop', 'V3 Stealer');
    const reply = await v3('/breachedaccount/alice@acme-v3.test');
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.body, expected.map((Name) => ({ Name })));
    // Any case, trimmed, URL-encoded or not.
    for (const spelling of ['ALICE@Acme-V3.test', 'alice%40acme-v3.test', '%20alice%40ACME-v3.test%20']) {
      assert.deepEqual((await v3(`/breachedaccount/${spelling}`)).body, reply.body, spelling);
    }
    // Held only by a sensitive well: none.
    const dave = await v3('/breachedaccount/dave@acme-v3.test');
    assert.equal(dave.status, 404);
    assert.equal(dave.text, '');
  });

  test('truncateResponse=false answers whole models; the booleans in any case; domain and includeUnverified filter', async () => {
    const full = await v3('/breachedaccount/bob@acme-v3.test?truncateResponse=FALSE');
    assert.equal(full.status, 200, full.text);
    const [model] = (await breachModelsByWellName(server.runtime.db, ['V3 Forum'])).values();
    assert.deepEqual(full.body, [model]);
    assert.deepEqual((await v3('/breachedaccount/bob@acme-v3.test?truncateResponse=False')).body, full.body);
    assert.deepEqual((await v3('/breachedaccount/bob@acme-v3.test?truncateResponse=TRUE')).body, [{ Name: model!.Name }]);
    assert.deepEqual((await v3('/breachedaccount/bob@acme-v3.test?includeUnverified=False')).body, model!.IsVerified ? [{ Name: model!.Name }] : '');
    refused(await v3('/breachedaccount/bob@acme-v3.test?truncateResponse=maybe'), 400, /truncateResponse/);
    // Only the wells of another domain: none.
    assert.equal((await v3('/breachedaccount/bob@acme-v3.test?domain=elsewhere.test')).status, 404);
    if (model!.Domain) assert.equal((await v3(`/breachedaccount/bob@acme-v3.test?domain=${model!.Domain.toUpperCase()}`)).status, 200);
  });

  test('a value without @ is a username; unknown accounts 404; empty or malformed 400', async () => {
    assert.deepEqual((await v3('/breachedaccount/Alice_V3')).body, (await names('V3 Shop')).map((Name) => ({ Name })));
    // An email's local part or a password is not a username.
    assert.equal((await v3('/breachedaccount/alice')).status, 404);
    assert.equal((await v3('/breachedaccount/forum-pw-1')).status, 404);
    assert.equal((await v3('/breachedaccount/nobody@acme-v3.test')).status, 404);
    refused(await v3('/breachedaccount/%20%20'), 400, BAD_ACCOUNT);
    refused(await v3('/breachedaccount/bad%01name'), 400, BAD_ACCOUNT);
    refused(await v3(`/breachedaccount/${'a'.repeat(250)}@acme-v3.test`), 400, BAD_ACCOUNT);
  });
});

test('the breachedaccount rules over the models: no sensitive or retired well; domain any case; unverified on request', () => {
  const well = (Name: string, flags: Partial<BreachModel> = {}) => ({ Name, Domain: '', IsVerified: true, IsSensitive: false, IsRetired: false, ...flags }) as BreachModel;
  const models = [
    well('Zeta', { Domain: 'zeta.example' }),
    well('Alpha', { Domain: 'Alpha.Example' }),
    well('Hidden', { IsSensitive: true }),
    well('Gone', { IsRetired: true }),
    well('Rumour', { IsVerified: false, Domain: 'alpha.example' }),
  ];
  const pick = (filter: Parameters<typeof selectBreaches>[1]) => selectBreaches(models, filter).map((m) => m.Name);
  assert.deepEqual(pick({ includeUnverified: true }), ['Alpha', 'Rumour', 'Zeta']);
  assert.deepEqual(pick({ includeUnverified: false }), ['Alpha', 'Zeta']);
  assert.deepEqual(pick({ includeUnverified: true, domain: 'ALPHA.example' }), ['Alpha', 'Rumour']);
  assert.deepEqual(pick({ includeUnverified: false, domain: 'alpha.example' }), ['Alpha']);
});

describe('domains', () => {
  test('breacheddomain: every alias of a verified domain with its wells, sensitive ones included', async () => {
    const reply = await v3('/breacheddomain/ACME-v3.test');
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.body, {
      alice: await names('V3 Forum', 'V3 Secret', 'V3 Shop', 'V3 Stealer'),
      bob: await names('V3 Forum'),
      dave: await names('V3 Secret'),
      erin: await names('V3 Stealer'),
    });
    // Verified, nothing found; a subdomain of a verified domain is covered.
    assert.equal((await v3('/breacheddomain/empty-v3.test')).status, 404);
    assert.equal((await v3('/breacheddomain/mail.acme-v3.test')).status, 404);
    refused(await v3('/breacheddomain/other-v3.test'), 403, DOMAIN_NOT_VERIFIED);
    refused(await v3('/breacheddomain/acme-v3.test', { key: seed.stranger.apiKey }), 403, DOMAIN_NOT_VERIFIED);
    refused(await v3('/breacheddomain/not%20a%20domain'), 400);
  });

  test('subscribeddomains: the verified domains with their breached addresses counted', async () => {
    const reply = await v3('/subscribeddomains');
    assert.equal(reply.status, 200, reply.text);
    const until = (await server.runtime.app.searchMeter.account(seed.owner.id))!.snapshot.search_subscribed_until!;
    const renewal = until.toISOString().replace(/\.\d+Z$/, 'Z');
    assert.deepEqual(reply.body, [
      { DomainName: 'acme-v3.test', PwnCount: 4, PwnCountExcludingSpamLists: 4, PwnCountExcludingSpamListsAtLastSubscriptionRenewal: null, NextSubscriptionRenewal: renewal },
      { DomainName: 'empty-v3.test', PwnCount: 0, PwnCountExcludingSpamLists: 0, PwnCountExcludingSpamListsAtLastSubscriptionRenewal: null, NextSubscriptionRenewal: renewal },
    ]);
    assert.deepEqual((await v3('/subscribeddomains', { key: seed.stranger.apiKey })).body, []);
  });
});

describe('stealer logs, pastes, subscription', () => {
  test('stealer logs: verified domains only; hosts and addresses from stealer-log wells', async (t) => {
    refused(await v3('/stealerlogsbyemail/frank@gmail-v3.test'), 403, DOMAIN_NOT_VERIFIED);
    refused(await v3('/stealerlogsbywebsitedomain/example.org'), 403, DOMAIN_NOT_VERIFIED);
    refused(await v3('/stealerlogsbyemaildomain/other-v3.test'), 403, DOMAIN_NOT_VERIFIED);
    refused(await v3('/stealerlogsbyemail/no-domain'), 400);
    // Verified, but only in a well that is no stealer log.
    assert.equal((await v3('/stealerlogsbyemail/bob@acme-v3.test')).status, 404);
    if (!(await stealerFlagged(server))) {
      t.skip('data_wells.is_stealer_log is not on this branch: no well is a stealer log');
      return;
    }
    assert.deepEqual((await v3('/stealerlogsbyemail/Alice@acme-v3.test')).body, ['login.acme-v3.test']);
    assert.deepEqual((await v3('/stealerlogsbyemaildomain/acme-v3.test')).body, { alice: ['login.acme-v3.test'], erin: ['shop.example.org'] });
    assert.deepEqual((await v3('/stealerlogsbywebsitedomain/acme-v3.test')).body, ['alice@acme-v3.test', 'frank@gmail-v3.test']);
    assert.equal((await v3('/stealerlogsbywebsitedomain/empty-v3.test')).status, 404);
  });

  test('pasteaccount is always 404; subscription/status shows the plan and limits', async () => {
    const paste = await v3('/pasteaccount/alice@acme-v3.test');
    assert.equal(paste.status, 404);
    assert.equal(paste.text, '');
    refused(await v3('/pasteaccount/%20'), 400, BAD_ACCOUNT);
    const status = await v3('/subscription/status');
    assert.equal(status.status, 200, status.text);
    const config = server.runtime.config;
    assert.deepEqual(Object.keys(status.body).sort(), ['Description', 'DomainSearchMaxBreachedAccounts', 'IncludesStealerLogs', 'Rpm', 'SubscribedUntil', 'SubscriptionName']);
    assert.equal(status.body.Rpm, config.API_RATE_PER_SECOND * 60);
    assert.equal(status.body.IncludesStealerLogs, true);
    assert.match(status.body.SubscribedUntil, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.ok(new Date(status.body.SubscribedUntil).getTime() > Date.now() + 29 * 86_400_000);
  });
});

describe('metering and privacy', () => {
  test('each answered call counts as one search and spends no credit; refusals count nothing', async () => {
    const user = await server.createUser({ searchDays: 30, searchCredits: 5, apiKey: true });
    await markDomainVerified(server.runtime.db, user.id, 'acme-v3.test');
    const before = await searchesToday(user.id);
    for (const path of ['/breachedaccount/alice@acme-v3.test', '/breachedaccount/nobody@acme-v3.test', '/breacheddomain/acme-v3.test', '/subscription/status']) {
      assert.ok([200, 404].includes((await v3(path, { key: user.apiKey! })).status), path);
    }
    const after4 = await searchesToday(user.id);
    assert.deepEqual(after4, { searches: before.searches + 4, credits: 5 });
    // Refused before the search: bad input, an unverified domain.
    assert.equal((await v3('/breachedaccount/%20', { key: user.apiKey! })).status, 400);
    assert.equal((await v3('/breacheddomain/other-v3.test', { key: user.apiKey! })).status, 403);
    assert.deepEqual(await searchesToday(user.id), after4);
  });

  test('no account, domain or key searched reaches the logs', async () => {
    await v3('/breachedaccount/secret.person@acme-v3.test?domain=hidden-filter.test');
    await v3('/stealerlogsbyemail/secret.person@acme-v3.test');
    const logs = server.logs();
    assert.ok(logs.includes('/api/v3/breachedaccount/[redacted]'), 'the request was logged, its account redacted');
    for (const value of ['secret.person', 'hidden-filter', seed.owner.apiKey]) assert.ok(!logs.includes(value), value);
  });
});
