/**
 * A provider that fails refunds the credits (docs/whois.md "Credits"): a
 * WhoisXML stub on loopback answering 500, then answering: a fetched record is cached and
 * kept in history. Real PostgreSQL.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, type TestServer } from '../support/harness';
import { call } from '../support/helpers';
import { packWhois } from '../../src/common/obfuscation';
import { WHOIS_MESSAGES } from '../../src/common/whois-rules';

describe('a provider that fails', () => {
  let stub: http.Server;
  let stubCalls = 0;
  let failing = true;
  let other: TestServer;

  before(async () => {
    stub = http.createServer((request, response) => {
      stubCalls++;
      if (failing) {
        response.writeHead(500).end('upstream broke');
        return;
      }
      const domain = new URL(request.url ?? '/', 'http://stub').searchParams.get('domainName') ?? 'fetched.test';
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          WhoisRecord: {
            domainName: domain,
            registrarName: 'Stub Registrar',
            createdDate: '2020-01-01T00:00:00Z',
            domainAvailability: 'UNAVAILABLE',
            registrant: { organization: 'Fetched Org' },
          },
        }),
      );
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const port = (stub.address() as AddressInfo).port;
    other = await startTestServer({
      env: {
        WHOIS_LOOKUP_PROVIDERS: 'whoisxml,local',
        WHOIS_DATA_PROVIDERS: 'whoisxml',
        WHOISXML_API_KEY: 'stub-key-123456',
        WHOISXML_BASE_URL: `http://127.0.0.1:${port}`,
        WHOIS_ALLOW_PRIVATE: 'true',
      },
    });
  });
  after(async () => {
    await other.close();
    stub.close();
  });

  test('every provider failed: 503, the credits come back with a ledger row', async () => {
    const user = await other.createUser({ whoisCredits: 30 });
    const { token } = await other.login(user.email);
    const reply = await call(other.url, 'POST', '/whois', { token, body: packWhois({ searchType: 'whois_history', query: 'broken.test' }) });
    assert.equal(reply.status, 503);
    assert.equal(reply.body.error, WHOIS_MESSAGES.unavailable);
    assert.ok(stubCalls > 0, 'the stub was asked');
    const balance = await call(other.url, 'GET', '/user/whois-credits', { token });
    assert.equal(balance.body.whois_credits, 30);
    const ledger = await other.runtime.db.selectFrom('credit_ledger').select(['delta', 'reason']).where('user_id', '=', user.id).orderBy('created_at').execute();
    assert.deepEqual(ledger.map((r) => [r.delta, r.reason]), [
      [-25, 'whois:whois_history'],
      [25, 'whois-refund:whois_history'],
    ]);
  });

  test('a fetched record is cached (asked once) and kept in history', async () => {
    failing = false;
    const user = await other.createUser({ whoisCredits: 5 });
    const { token } = await other.login(user.email);
    const before = stubCalls;
    const first = await call(other.url, 'POST', '/whois', { token, body: packWhois({ searchType: 'whois', query: 'fetched.test' }) });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.source, 'whoisxml');
    assert.equal(first.body.data.registrarName, 'Stub Registrar');
    const second = await call(other.url, 'POST', '/whois', { token, body: packWhois({ searchType: 'whois', query: 'fetched.test' }) });
    assert.equal(second.status, 200);
    assert.equal(second.body.data.registrarName, 'Stub Registrar');
    assert.equal(stubCalls, before + 1, 'the second answer came from the cache');
    assert.equal(second.body.remaining_credits, 3, 'a cached answer still costs its credit');
    const kept = await other.runtime.db.selectFrom('whois_snapshots').select(['registrar_name', 'is_current']).where('domain', '=', 'fetched.test').execute();
    assert.deepEqual(kept, [{ registrar_name: 'Stub Registrar', is_current: true }]);
  });
});
