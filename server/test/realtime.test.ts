import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from './harness';
import { call, connectWebSocket } from './helpers';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

const connect = () => connectWebSocket(server);

test('anyone joins the test channel and receives what is published to it', async () => {
  const client = await connect();
  client.socket.send(JSON.stringify({ type: 'action', action: 'join-channel', channel: 'test' }));
  assert.deepEqual(await client.next(), { type: 'joined', channel: 'test' });
  server.runtime.app.realtime.publish('test', { hello: 'world' });
  assert.deepEqual(await client.next(), { type: 'message', channel: 'test', data: { hello: 'world' } });
  client.socket.send(JSON.stringify({ type: 'action', action: 'leave-channel', channel: 'test' }));
  assert.deepEqual(await client.next(), { type: 'left', channel: 'test' });
  client.socket.close();
});

test('private channels need a live access token', async () => {
  const client = await connect();
  client.socket.send(JSON.stringify({ type: 'action', action: 'join-channel', channel: 'crypto-payment-1' }));
  assert.equal((await client.next()).error, 'Unauthorized');
  client.socket.send(JSON.stringify({ type: 'auth', token: 'forged.token.value' }));
  assert.deepEqual(await client.next(), { type: 'auth', ok: false });
  const user = await server.createUser();
  const { token } = await server.login(user.email);
  const invoice = await call(server.url, 'POST', '/payments/crypto-invoice', { token, body: { sku: 'search-credits', quantity: 10 } });
  assert.equal(invoice.status, 200);
  client.socket.send(JSON.stringify({ type: 'auth', token }));
  assert.deepEqual(await client.next(), { type: 'auth', ok: true });
  const channel = `crypto-payment-${invoice.body.id}`;
  client.socket.send(JSON.stringify({ type: 'action', action: 'join-channel', channel }));
  assert.deepEqual(await client.next(), { type: 'joined', channel });
  client.socket.close();
});

test("a signed-in user joins only their own invoice's channel; any other channel is Not Found", async () => {
  const owner = await server.createUser();
  const ownerToken = (await server.login(owner.email)).token;
  const invoice = await call(server.url, 'POST', '/payments/crypto-invoice', { token: ownerToken, body: { sku: 'search-credits', quantity: 10 } });
  const stranger = await server.createUser();
  const client = await connect();
  client.socket.send(JSON.stringify({ type: 'auth', token: (await server.login(stranger.email)).token }));
  assert.deepEqual(await client.next(), { type: 'auth', ok: true });
  for (const channel of [`crypto-payment-${invoice.body.id}`, 'crypto-payment-1', 'notifications-123', 'someone-elses']) {
    client.socket.send(JSON.stringify({ type: 'action', action: 'join-channel', channel }));
    assert.deepEqual(await client.next(), { type: 'error', channel, error: 'Not Found' });
  }
  server.runtime.app.realtime.publish(`crypto-payment-${invoice.body.id}`, { status: 'complete' });
  client.socket.send(JSON.stringify({ type: 'action', action: 'join-channel', channel: 'test' }));
  assert.deepEqual(await client.next(), { type: 'joined', channel: 'test' }, 'nothing was delivered before');
  client.socket.close();
});

test('two instances sharing Redis: a socket on one receives what the other publishes', { timeout: 20_000, skip: !process.env.TEST_REDIS_URL && 'TEST_REDIS_URL unset' }, async () => {
  const second = await startTestServer({ shareWith: server });
  try {
    const user = await server.createUser();
    const { token } = await server.login(user.email);
    const invoice = await call(server.url, 'POST', '/payments/crypto-invoice', { token, body: { sku: 'search-credits', quantity: 10 } });
    const client = await connect();
    client.socket.send(JSON.stringify({ type: 'auth', token }));
    assert.deepEqual(await client.next(), { type: 'auth', ok: true });
    const channel = `crypto-payment-${invoice.body.id}`;
    client.socket.send(JSON.stringify({ type: 'action', action: 'join-channel', channel }));
    assert.deepEqual(await client.next(), { type: 'joined', channel });
    await second.runtime.app.realtime.publish(channel, { status: 'complete' });
    assert.deepEqual(await client.next(), { type: 'message', channel, data: { status: 'complete' } });
    client.socket.close();
  } finally {
    await second.close();
  }
});

test('malformed or oversized messages close the socket', async () => {
  const bad = await connect();
  bad.socket.send('not json');
  assert.equal(await bad.closed, 1008);
  const huge = await connect();
  huge.socket.send(JSON.stringify({ type: 'action', action: 'join-channel', channel: 'x'.repeat(5000) }));
  assert.equal(await huge.closed, 1009);
});
