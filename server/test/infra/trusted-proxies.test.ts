// Fastify's trustProxy for TRUSTED_PROXIES (infra/trusted-proxies.ts): the list check of
// @fastify/proxy-addr, remembered per address, and through Fastify the client address taken
// from X-Forwarded-For only as far as the hops are trusted proxies.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import proxyAddr from '@fastify/proxy-addr';
import { registerClientAddress } from '../../src/infra/client-address';
import { trustedProxyCheck } from '../../src/infra/trusted-proxies';

describe('trustedProxyCheck', () => {
  test('answers as the list check it remembers: addresses, CIDR ranges, names, IPv4-mapped IPv6', () => {
    const list = ['192.0.2.10', '10.0.0.0/8', 'loopback', '2001:db8::/32'];
    const check = trustedProxyCheck(list);
    const reference = proxyAddr.compile(list);
    const addresses = ['192.0.2.10', '192.0.2.11', '10.200.1.2', '11.0.0.1', '127.0.0.1', '::1', '::ffff:10.1.2.3', '::ffff:192.0.2.11', '2001:db8:5::1', '2001:db9::1', 'not an address'];
    for (let round = 0; round < 2; round++) {
      // The second round answers from memory: the same answers.
      for (const address of addresses) assert.equal(check(address, 0), reference(address, 0), `${address} (round ${round + 1})`);
    }
    assert.deepEqual(addresses.filter((a) => check(a, 0)), ['192.0.2.10', '10.200.1.2', '127.0.0.1', '::1', '::ffff:10.1.2.3', '2001:db8:5::1']);
  });

  test('past the remembered addresses it starts again, answering alike', () => {
    const check = trustedProxyCheck(['10.0.0.0/8']);
    for (let i = 0; i < 3000; i++) assert.equal(check(`10.${i >> 8}.${i & 255}.1`, 0), true);
    assert.equal(check('11.0.0.1', 0), false);
    assert.equal(check('10.0.0.1', 0), true);
  });
});

describe('X-Forwarded-For through Fastify with the check as trustProxy', () => {
  let app: FastifyInstance;
  before(async () => {
    // The settings app.ts gives Fastify for TRUSTED_PROXIES=127.0.0.1, and the limit address.
    app = Fastify({ trustProxy: trustedProxyCheck(['127.0.0.1']) });
    registerClientAddress(app, { ipv6PrefixBits: 64, trustedProxies: ['127.0.0.1'] });
    app.get('/test-client-address', (request) => ({ ip: request.ip, limitAddress: request.limitAddress }));
    await app.ready();
  });
  after(() => app?.close());

  test('the client named by the trusted peer is the address limits key on; an untrusted hop ends the chain', async () => {
    const ask = async (forwarded?: string) => (await app.inject({ method: 'GET', url: '/test-client-address', remoteAddress: '127.0.0.1', headers: forwarded ? { 'x-forwarded-for': forwarded } : {} })).json() as { ip: string; limitAddress: string };
    assert.deepEqual(await ask('203.0.113.7'), { ip: '203.0.113.7', limitAddress: '203.0.113.7' });
    // 198.51.100.1 is not trusted: what it claims (the first entry) is not believed.
    assert.deepEqual(await ask('203.0.113.7, 198.51.100.1'), { ip: '198.51.100.1', limitAddress: '198.51.100.1' });
    assert.deepEqual(await ask('2001:db8:1:2::5'), { ip: '2001:db8:1:2::5', limitAddress: '2001:db8:1:2:0:0:0:0/64' });
    assert.deepEqual(await ask(), { ip: '127.0.0.1', limitAddress: '127.0.0.1' });
  });
});
