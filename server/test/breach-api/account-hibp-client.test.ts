/**
 * The published `hibp` client (npm, unchanged) against a LeakWell server's Breach API v3
 * keyed calls: only its base URL points here. What it returns for 200 and 404, and the
 * errors it raises for our 401, 403 and 429 answers; and the 429 itself on the wire (this
 * server's bucket is slow: 1 request a second, bursts of 25).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  breachedAccount, breachedDomain, pasteAccount, RateLimitError, stealerLogsByEmail, stealerLogsByEmailDomain,
  stealerLogsByWebsiteDomain, subscribedDomains, subscriptionStatus,
} from 'hibp';
import { startTestServer, type TestServer } from '../support/harness';
import { freshIp } from '../support/helpers';
import { breachModelsByWellName } from '../../src/datawells/breach-model-service';
import { V3_MESSAGES } from '../../src/breach-api/v3-guard';
import { seedV3, stealerFlagged, type V3Seed } from './account-fixtures';

let server: TestServer;
let seed: V3Seed;

const BURST = 25;

before(async () => {
  // A burst the client's calls stay within, and a rate slow enough for the 429 to show.
  server = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1', API_RATE_BURST: String(BURST), API_RATE_PER_SECOND: '1' } });
  seed = await seedV3(server);
});
after(() => server.close());

const options = (apiKey = seed.owner.apiKey) => ({ baseUrl: `${server.url}/api/v3/`, apiKey, userAgent: 'leakwell-hibp-client-test' });

async function names(...titles: string[]): Promise<string[]> {
  const models = await breachModelsByWellName(server.runtime.db, titles);
  return titles.map((t) => models.get(t)!.Name).sort();
}

test('breachedAccount: names, whole models, filters, null when none', async () => {
  const holding = await names('V3 Forum', 'V3 Shop', 'V3 Stealer');
  assert.deepEqual(await breachedAccount('alice@acme-v3.test', options()), holding.map((Name) => ({ Name })));
  const [forum] = (await breachModelsByWellName(server.runtime.db, ['V3 Forum'])).values();
  assert.deepEqual(await breachedAccount('bob@acme-v3.test', { ...options(), truncate: false, includeUnverified: false }), forum!.IsVerified ? [forum] : null);
  assert.equal(await breachedAccount('bob@acme-v3.test', { ...options(), domain: 'elsewhere.test' }), null);
  assert.equal(await breachedAccount('dave@acme-v3.test', options()), null);
});

test('breachedDomain and subscribedDomains of the verified domains', async () => {
  const domain = await breachedDomain('acme-v3.test', options());
  assert.deepEqual(Object.keys(domain ?? {}), ['alice', 'bob', 'dave', 'erin']);
  assert.deepEqual(domain!.dave, await names('V3 Secret'));
  assert.equal(await breachedDomain('empty-v3.test', options()), null);
  const subscribed = await subscribedDomains(options());
  assert.deepEqual(
    subscribed.map((d) => [d.DomainName, d.PwnCount]),
    [
      ['acme-v3.test', 4],
      ['empty-v3.test', 0],
    ],
  );
  // 403 is the client's own text.
  await assert.rejects(breachedDomain('other-v3.test', options()), /Forbidden/);
});

test('stealer logs, pastes and the subscription status', async () => {
  if (await stealerFlagged(server)) {
    assert.deepEqual(await stealerLogsByEmail('alice@acme-v3.test', options()), ['login.acme-v3.test']);
    assert.deepEqual(await stealerLogsByEmailDomain('acme-v3.test', options()), { alice: ['login.acme-v3.test'], erin: ['shop.example.org'] });
    assert.deepEqual(await stealerLogsByWebsiteDomain('acme-v3.test', options()), ['alice@acme-v3.test', 'frank@gmail-v3.test']);
  } else {
    assert.equal(await stealerLogsByEmail('alice@acme-v3.test', options()), null);
  }
  assert.equal(await pasteAccount('alice@acme-v3.test', options()), null);
  const status = await subscriptionStatus(options());
  assert.equal(status.Rpm, 60);
  assert.equal(status.IncludesStealerLogs, true);
  assert.equal(typeof status.SubscribedUntil, 'string');
});

test("the client's errors: our 401 text, and RateLimitError with retry-after", async () => {
  await assert.rejects(breachedAccount('alice@acme-v3.test', options('f'.repeat(48))), (error: Error) => error.message.includes(V3_MESSAGES.invalidKey));
  await assert.rejects(subscriptionStatus(options(seed.unsubscribed.apiKey)), (error: Error) => error.message.includes(V3_MESSAGES.noSubscription));
  let limited: RateLimitError | undefined;
  for (let i = 0; i < 40 && !limited; i++) {
    await pasteAccount('alice@acme-v3.test', options()).catch((error: unknown) => {
      if (error instanceof RateLimitError) limited = error;
      else throw error;
    });
  }
  assert.ok(limited, 'the client saw a 429');
  assert.ok(limited.retryAfterSeconds! >= 1);
  assert.equal(limited.message, `Rate limit is exceeded. Try again in ${limited.retryAfterSeconds} seconds.`);
});

test("429 past the key's bucket: retry-after in whole seconds and the service's JSON", async () => {
  const user = await server.createUser({ searchDays: 30, apiKey: true });
  const call = () =>
    fetch(`${server.url}/api/v3/pasteaccount/alice@acme-v3.test`, { headers: { 'hibp-api-key': user.apiKey!, 'user-agent': 'leakwell-test', 'x-forwarded-for': freshIp() } });
  const replies = await Promise.all(Array.from({ length: BURST * 2 }, call));
  assert.ok(replies.every((r) => r.status === 404 || r.status === 429));
  const limited = replies.filter((r) => r.status === 429);
  assert.ok(limited.length >= BURST - 5, `429s: ${limited.length}`);
  for (const reply of limited) {
    const seconds = reply.headers.get('retry-after') ?? '';
    assert.match(seconds, /^[1-9]\d*$/);
    assert.deepEqual(await reply.json(), { statusCode: 429, message: `Rate limit is exceeded. Try again in ${seconds} seconds.` });
  }
});
