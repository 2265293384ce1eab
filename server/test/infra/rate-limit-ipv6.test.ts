import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { packForgot } from '../../src/common/obfuscation';
import { limitAddress } from '../../src/infra/client-address';
import { eventually, startTestServer, type TestServer } from '../support/harness';

const WARNING = 'X-Forwarded-For received from a peer that is not a trusted proxy';
const warnings = (server: TestServer) => server.logs().split(WARNING).length - 1;

describe('limitAddress', () => {
  test('IPv6 is bucketed by its prefix; IPv4 and IPv4-mapped IPv6 stay per address', () => {
    assert.equal(limitAddress('2001:db8:1:2:aaaa::1', 64), limitAddress('2001:db8:1:2::ffff', 64));
    assert.notEqual(limitAddress('2001:db8:1:2::1', 64), limitAddress('2001:db8:1:3::1', 64));
    assert.equal(limitAddress('2001:db8:1:2::1', 48), limitAddress('2001:db8:1:3::1', 48));
    assert.notEqual(limitAddress('2001:db8:1:2::1', 128), limitAddress('2001:db8:1:2::2', 128));
    assert.equal(limitAddress('2001:0DB8:0001:0002::1', 64), limitAddress('2001:db8:1:2:0:0:0:9', 64), 'one spelling per network');
    assert.equal(limitAddress('198.51.100.7', 64), '198.51.100.7');
    assert.notEqual(limitAddress('198.51.100.7', 64), limitAddress('198.51.100.8', 64));
    assert.equal(limitAddress('::ffff:198.51.100.7', 64), '198.51.100.7');
    assert.notEqual(limitAddress('::ffff:198.51.100.7', 64), limitAddress('::ffff:198.51.100.8', 64));
  });
});

describe('per-address limits with IPv6 clients', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const forgot = (remoteAddress: string, n: number) =>
    server.runtime.app.inject({
      method: 'POST',
      url: '/authentication/forgot-password',
      payload: packForgot(`nobody-${n}@example.com`),
      remoteAddress,
    });

  test('addresses of one /64 share the forgot-password bucket; another /64 has its own', async () => {
    // FORGOT_PER_IP allows a burst of 10: ten different addresses of one /64 spend it.
    for (let i = 1; i <= 10; i++) {
      const reply = await forgot(`2001:db8:77:1::${i.toString(16)}`, i);
      assert.notEqual(reply.statusCode, 429, `request ${i} within the burst`);
    }
    const rotated = await forgot('2001:db8:77:1:ffff:ffff:ffff:fffe', 11);
    assert.equal(rotated.statusCode, 429, 'a new address in the same /64 is still limited');
    const other = await forgot('2001:db8:77:2::1', 12);
    assert.notEqual(other.statusCode, 429, 'another /64 is a different client');
    const mappedA = await forgot('::ffff:198.51.100.7', 13);
    assert.notEqual(mappedA.statusCode, 429, 'IPv4-mapped addresses are counted per IPv4 address');
  });

  test('one warning, at the first X-Forwarded-For from an untrusted peer', async () => {
    assert.equal(warnings(server), 0);
    for (let i = 0; i < 3; i++) {
      await server.runtime.app.inject({ method: 'GET', url: '/health', headers: { 'x-forwarded-for': `203.0.113.${i + 1}` }, remoteAddress: '192.0.2.10' });
    }
    await eventually(async () => warnings(server) > 0);
    assert.equal(warnings(server), 1, 'logged once, not per request');
  });
});

describe('a trusted proxy', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { TRUSTED_PROXIES: '192.0.2.10' } });
  });
  after(() => server.close());

  test('forwarded IPv6 clients are bucketed too, and the trusted proxy causes no warning', async () => {
    const forgot = (client: string, n: number) =>
      server.runtime.app.inject({
        method: 'POST',
        url: '/authentication/forgot-password',
        payload: packForgot(`nobody-${n}@example.com`),
        headers: { 'x-forwarded-for': client },
        remoteAddress: '192.0.2.10',
      });
    for (let i = 1; i <= 10; i++) assert.notEqual((await forgot(`2001:db8:88:1::${i}`, i)).statusCode, 429);
    assert.equal((await forgot('2001:db8:88:1::abcd', 11)).statusCode, 429);
    assert.notEqual((await forgot('2001:db8:88:2::1', 12)).statusCode, 429);
    assert.equal(warnings(server), 0);
    await server.runtime.app.inject({ method: 'GET', url: '/health', headers: { 'x-forwarded-for': '203.0.113.1' }, remoteAddress: '192.0.2.99' });
    await eventually(async () => warnings(server) > 0);
  });
});
