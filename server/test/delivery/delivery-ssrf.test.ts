/**
 * Reliability test 27: webhook URLs that reach inside are refused when a channel is saved
 * (checkWebhookUrl) and again at every connect, in every spelling of an address; a name
 * that resolves to a public address when saved and to loopback when connecting (DNS
 * rebinding) is refused at connect; WEBHOOK_ALLOW_PRIVATE=true lifts the guard.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkWebhookUrl, guardedAgent, PRIVATE_TARGET_MESSAGE, WEBHOOK_PORT_MESSAGE } from '../../src/infra/ssrf';
import { sendWebhook } from '../../src/delivery/webhook-sender';
import type { QueueSystem } from '../../src/infra/queues';
import { startTestServer, type TestServer } from '../support/harness';
import { call } from '../support/helpers';
import { BACKENDS, attemptsOf, createAlert, newWebhookSecret, queueClient, settled, startReceiver, type Receiver } from '../support/delivery-fixtures';

/** localhost and local-network names in every spelling that reaches the resolver. */
const LOCAL_NAME_SPELLINGS = [
  'localhost.',
  'LOCALHOST.',
  'LocalHost',
  'localhost..',
  'localhost%2e', // percent-encoded trailing dot
  '%6c%6fcalhost',
  '\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54', // fullwidth, folded by IDNA
  'foo.localhost.',
  'FOO.LOCALHOST',
  'localhost.localdomain',
  'localhost.localdomain.',
  'printer.local',
  'metadata.google.internal',
  'router.home.arpa',
  'nas.lan',
  'metadata', // single label: completed by the search domains
  'intranet.',
];

/** Every way to write an address that is not public (host part of a URL). */
const PRIVATE_HOSTS = [
  '127.0.0.1',
  '2130706433', // decimal
  '0177.0.0.1', // octal
  '0x7f.0.0.1', // hex
  '0x7f000001',
  '127.1', // short
  '127.0.1',
  '[::1]',
  '[::ffff:127.0.0.1]', // IPv4-mapped IPv6
  '[::ffff:7f00:1]',
  '[0:0:0:0:0:ffff:7f00:1]',
  '[::127.0.0.1]', // IPv4-compatible
  'localhost',
  'foo.localhost',
  '169.254.169.254', // cloud metadata (link-local)
  '10.0.0.1',
  '012.0.0.1', // octal 10.0.0.1
  '172.16.0.1',
  '172.31.255.255',
  '192.168.1.1',
  '3232235777', // decimal 192.168.1.1
  '100.64.0.1', // CGNAT
  '100.127.255.254',
  '0.0.0.0',
  '0',
  '224.0.0.1', // multicast
  '239.255.255.250',
  '240.0.0.1', // reserved
  '255.255.255.255',
  '192.0.2.1', // documentation
  '198.18.0.1', // benchmarking
  '[::]',
  '[fc00::1]', // unique-local
  '[fd12:3456::1]',
  '[fe80::1]', // link-local
  '[ff02::1]', // multicast
  '[::ffff:169.254.169.254]',
  '[::ffff:10.0.0.1]',
  '[64:ff9b::7f00:1]', // NAT64 of loopback
  // Names the resolver may not answer at save, refused by their spelling: the check cannot hang on the resolver.
  ...LOCAL_NAME_SPELLINGS,
  // Forms the URL parser normalises (checked here so a parser change cannot reopen them).
  '127.0.0.1.',
  '2130706433.',
  '0x7f.1',
  '0x7f.1.',
  '0x7F000001',
  '[0:0:0:0:0:0:0:1]',
  '[::ffff:0:127.0.0.1]', // IPv4-translated (RFC 6145)
  '[2002:7f00:1::]', // 6to4 of loopback
  '[2001::1]', // Teredo
];

const publicResolver = async () => ['93.184.215.14'];

describe('SSRF guard at save (checkWebhookUrl)', () => {
  test('every private, loopback, link-local, CGNAT, multicast and reserved spelling is refused', async () => {
    for (const host of PRIVATE_HOSTS) {
      for (const url of [`http://${host}/hook`, `https://${host}:8443/x?y=1`]) {
        assert.equal(await checkWebhookUrl(url, { allowPrivate: false, resolve: publicResolver }), PRIVATE_TARGET_MESSAGE, url);
      }
    }
  });

  test('a name resolving to any private address is refused; public names and addresses pass', async () => {
    const resolver = (map: Record<string, string[]>) => async (host: string) => map[host] ?? [];
    const resolve = resolver({ 'inside.example': ['10.1.2.3'], 'mixed.example': ['93.184.215.14', '127.0.0.1'], 'hooks.example': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] });
    assert.equal(await checkWebhookUrl('https://inside.example/h', { allowPrivate: false, resolve }), PRIVATE_TARGET_MESSAGE);
    assert.equal(await checkWebhookUrl('https://mixed.example/h', { allowPrivate: false, resolve }), PRIVATE_TARGET_MESSAGE);
    assert.equal(await checkWebhookUrl('https://hooks.example/h', { allowPrivate: false, resolve }), null);
    assert.equal(await checkWebhookUrl('https://8.8.8.8/h', { allowPrivate: false, resolve }), null);
    assert.equal(await checkWebhookUrl('https://[2606:4700:4700::1111]/h', { allowPrivate: false, resolve }), null);
  });

  test('ports: 80, 443 and 1024-65535 only, whichever way the URL names them', async () => {
    const check = (url: string) => checkWebhookUrl(url, { allowPrivate: false, resolve: publicResolver });
    for (const url of ['http://hooks.example:22/h', 'https://hooks.example:25/h', 'http://hooks.example:0/h', 'http://hooks.example:81/h', 'https://hooks.example:1023/h', 'http://8.8.8.8:873/h', 'https://[2606:4700:4700::1111]:5/h']) {
      assert.equal(await check(url), WEBHOOK_PORT_MESSAGE, url);
    }
    for (const url of ['http://hooks.example/h', 'https://hooks.example/h', 'http://hooks.example:80/h', 'https://hooks.example:443/h', 'http://hooks.example:443/h', 'https://hooks.example:1024/h', 'https://hooks.example:8443/h', 'http://8.8.8.8:65535/h']) {
      assert.equal(await check(url), null, url);
    }
    // An address that is not public is refused for what it is, whatever its port.
    assert.equal(await check('http://127.0.0.1:22/h'), PRIVATE_TARGET_MESSAGE);
  });

  test('only http(s) URLs: anything else is "invalid URL"', async () => {
    for (const url of ['ftp://example.com/x', 'file:///etc/passwd', 'gopher://127.0.0.1/', 'javascript:alert(1)', 'not a url', '', 'http://user:pw@example.com/']) {
      assert.equal(await checkWebhookUrl(url, { allowPrivate: false, resolve: publicResolver }), 'invalid URL', url);
    }
  });

  test('WEBHOOK_ALLOW_PRIVATE lifts the address and port checks, not the URL check', async () => {
    assert.equal(await checkWebhookUrl('http://127.0.0.1:8080/hook', { allowPrivate: true }), null);
    assert.equal(await checkWebhookUrl('http://localhost.:22/hook', { allowPrivate: true }), null);
    assert.equal(await checkWebhookUrl('http://[::1]/hook', { allowPrivate: true }), null);
    assert.equal(await checkWebhookUrl('ftp://127.0.0.1/', { allowPrivate: true }), 'invalid URL');
  });
});

describe('SSRF guard at connect (no server)', () => {
  let hook: Receiver;
  before(async () => {
    hook = await startReceiver();
  });
  after(() => hook.close());

  test('DNS rebinding: public when saved, loopback when connecting: refused at connect, the receiver sees nothing', async () => {
    let lookups = 0;
    // The first answer (the save check) is public; every later one (the connect) is loopback.
    const rebinding = async () => (lookups++ === 0 ? ['93.184.215.14'] : ['127.0.0.1']);
    const url = `http://rebind.example:${hook.port}/hook`;
    assert.equal(await checkWebhookUrl(url, { allowPrivate: false, resolve: rebinding }), null, 'passes at save');
    const agent = guardedAgent({ allowPrivate: false, resolve: rebinding });
    const result = await sendWebhook({ url, secret: newWebhookSecret(), id: 'msg_1', body: '{}', timeoutMs: 2000, dispatcher: agent, userAgent: 'test' });
    await agent.close();
    assert.equal(result.status, null);
    assert.match(result.error ?? '', /^refused: rebind\.example resolves to a non-public address \(127\.0\.0\.1\)/);
    assert.ok(lookups >= 2, 'resolved again at connect');
    assert.equal(hook.requests.length, 0);
  });

  test('the same name with the guard lifted reaches the receiver (the refusal above is the guard)', async () => {
    const agent = guardedAgent({ allowPrivate: true, resolve: async () => ['127.0.0.1'] });
    const result = await sendWebhook({ url: `http://rebind.example:${hook.port}/hook`, secret: newWebhookSecret(), id: 'msg_2', body: '{}', timeoutMs: 2000, dispatcher: agent, userAgent: 'test' });
    await agent.close();
    assert.equal(result.status, 200);
    assert.equal(hook.requests.length, 1);
    assert.equal(hook.requests[0]!.headers.host, `rebind.example:${hook.port}`);
  });

  test('IP literals, which a socket never resolves, are checked at connect too', async () => {
    const agent = guardedAgent({ allowPrivate: false, resolve: publicResolver });
    for (const host of ['127.0.0.1', '2130706433', '0177.0.0.1', '0x7f.1', '127.1', '[::ffff:127.0.0.1]', '[::1]']) {
      const result = await sendWebhook({ url: `http://${host}:${hook.port}/hook`, secret: newWebhookSecret(), id: 'msg_3', body: '{}', timeoutMs: 2000, dispatcher: agent, userAgent: 'test' });
      assert.match(result.error ?? '', /^refused: /, host);
    }
    await agent.close();
    assert.equal(hook.requests.length, 1, 'only the lifted-guard request above arrived');
  });

  test('a webhook port outside 80, 443 and 1024-65535 is refused at connect, before any lookup', async () => {
    let lookups = 0;
    const agent = guardedAgent({ allowPrivate: false, webhookPorts: true, resolve: async () => (lookups++, ['93.184.215.14']) });
    for (const url of ['http://hooks.example:22/hook', 'https://hooks.example:25/hook', 'http://8.8.8.8:81/hook']) {
      const result = await sendWebhook({ url, secret: newWebhookSecret(), id: 'msg_4', body: '{}', timeoutMs: 2000, dispatcher: agent, userAgent: 'test' });
      assert.match(result.error ?? '', /^refused: port \d+ is not allowed for webhooks/, url);
    }
    await agent.close();
    assert.equal(lookups, 0);
  });
});

for (const backend of BACKENDS) {
  describe(`SSRF guard at send, through the deliver queue on ${backend}`, () => {
    let server: TestServer;
    let queues: QueueSystem;
    let hook: Receiver;
    before(async () => {
      // The default: WEBHOOK_ALLOW_PRIVATE=false.
      server = await startTestServer({ redis: backend === 'redis', env: { WEBHOOK_RETRY_DELAYS_MS: '0,20', WEBHOOK_TIMEOUT_MS: '2000' } });
      queues = queueClient(server);
      hook = await startReceiver();
    });
    after(async () => {
      await queues.close();
      await server.close();
      await hook.close();
    });

    test('localhost and numeric spellings are refused when a channel is saved, with the same message', async () => {
      const user = await server.createUser({ enterprise: true });
      const { token } = await server.login(user.email);
      for (const url of ['http://localhost./', 'http://LOCALHOST./', 'http://localhost.localdomain/', 'http://2130706433/', 'http://0x7f.1/', 'http://[::ffff:127.0.0.1]/', 'http://[::1]/']) {
        const reply = await call(server.url, 'POST', '/notification-channels/add', { token, body: { key: 'webhook', value: url } });
        assert.equal(reply.status, 400, url);
        assert.equal(reply.body.error, PRIVATE_TARGET_MESSAGE, url);
      }
      const port = await call(server.url, 'POST', '/notification-channels/add', { token, body: { key: 'webhook', value: 'https://93.184.216.34:22/hook' } });
      assert.equal(port.status, 400);
      assert.equal(port.body.error, WEBHOOK_PORT_MESSAGE);
    });

    test('a channel stored with an inside address (bypassing the save check) is refused at every attempt, in every spelling', async () => {
      const hosts = ['127.0.0.1', '2130706433', '0177.0.0.1', '0x7f.0.0.1', '127.1', '[::ffff:127.0.0.1]', '[::1]', 'localhost'];
      const alerts = [];
      for (const host of hosts) alerts.push({ host, alert: await createAlert(server, queues, { kind: 'webhook', value: `http://${host}:${hook.port}/hook`, secret: newWebhookSecret() }) });
      for (const { host, alert } of alerts) {
        const row = await settled(server, alert.deliveryId);
        assert.equal(row.status, 'dead', host);
        const attempts = await attemptsOf(server, alert.deliveryId);
        assert.equal(attempts.length, 2, host);
        for (const a of attempts) assert.match(a.error ?? '', /^refused: /, `${host}: ${a.error}`);
      }
      assert.equal(hook.requests.length, 0, 'nothing reached the loopback receiver');
    });
  });
}
