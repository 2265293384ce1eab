import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, TEST_PASSWORD, type TestServer } from '../support/harness';
import { call, connectWebSocket, type SocketClient } from '../support/helpers';
import { SESSION_ENDED_CLOSE_CODE } from '../../src/realtime/realtime-routes';

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

// Reliability test 40: a session's end closes its websockets, so a signed-out token hears nothing more.

/** A new session of `email` with a socket authenticated by it and joined to `channel`. */
async function sessionSocket(email: string, channel?: string, target: TestServer = server) {
  const session = await target.login(email);
  const client = await connectWebSocket(target);
  client.send({ type: 'auth', token: session.token });
  assert.deepEqual(await client.next(), { type: 'auth', ok: true });
  const joined = channel ?? (await ownChannel(session.token, target));
  client.send({ type: 'action', action: 'join-channel', channel: joined });
  assert.deepEqual(await client.next(), { type: 'joined', channel: joined });
  return { ...session, client, channel: joined };
}

/** A channel only this user may join: their crypto invoice's. */
async function ownChannel(token: string, target: TestServer = server): Promise<string> {
  const invoice = await call(target.url, 'POST', '/payments/crypto-invoice', { token, body: { sku: 'search-credits', quantity: 10 } });
  assert.equal(invoice.status, 200, JSON.stringify(invoice.body));
  return `crypto-payment-${invoice.body.id}`;
}

/** Closed by the server because its session ended, and nothing arrived after. */
async function assertEnded(client: SocketClient, what: string) {
  const stillOpen = new Promise<string>((resolve) => setTimeout(() => resolve('still open after 5 s'), 5000).unref());
  assert.equal(await Promise.race([client.closed, stillOpen]), SESSION_ENDED_CLOSE_CODE, what);
  await assert.rejects(client.next(200), /no websocket message in time/, `${what}: nothing after the end`);
}

async function assertReceives(client: SocketClient, channel: string, data: object) {
  assert.deepEqual(await client.next(), { type: 'message', channel, data });
}

test('logout closes the sockets of that session (4401), not those of the same user\'s other sessions', async () => {
  const user = await server.createUser();
  const a = await sessionSocket(user.email);
  const b = await sessionSocket(user.email, a.channel);
  assert.equal((await call(server.url, 'POST', '/authentication/logout', { cookie: a.cookie })).status, 200);
  await server.runtime.app.realtime.publish(a.channel, { status: 'complete' });
  await assertEnded(a.client, 'the logged-out session');
  await assertReceives(b.client, a.channel, { status: 'complete' });
  b.client.socket.close();
});

test("a password change closes the other sessions' sockets; the session that changed it keeps its own", async () => {
  const user = await server.createUser();
  const a = await sessionSocket(user.email);
  const b = await sessionSocket(user.email, a.channel);
  const changed = await call(server.url, 'POST', '/authentication/update-password', { token: a.token, body: { password: TEST_PASSWORD, new_password: 'Another-Pw-8Yq' } });
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  await server.runtime.app.realtime.publish(a.channel, { status: 'complete' });
  await assertEnded(b.client, 'the other session');
  await assertReceives(a.client, a.channel, { status: 'complete' });
  a.client.socket.close();
});

test('account closure closes every socket of the account; another user\'s socket stays open', async () => {
  const user = await server.createUser();
  const a = await sessionSocket(user.email);
  const b = await sessionSocket(user.email, a.channel);
  const bystander = await sessionSocket((await server.createUser()).email, 'test');
  assert.equal((await call(server.url, 'POST', '/user/account-closure-request', { token: a.token })).status, 200);
  const link = (await server.waitForMail(user.email, /closure/)).links[0]!;
  const t = new URL(link).searchParams.get('t')!;
  assert.equal((await call(server.url, 'POST', '/user/account-closure-final', { token: a.token, body: { token: t } })).status, 200);
  await server.runtime.app.realtime.publish(a.channel, { status: 'complete' });
  await assertEnded(a.client, 'session a');
  await assertEnded(b.client, 'session b');
  await server.runtime.app.realtime.publish('test', { still: 'here' });
  await assertReceives(bystander.client, 'test', { still: 'here' });
  bystander.client.socket.close();
});

test('a reused refresh token ends its session: its sockets close', async () => {
  const user = await server.createUser();
  const a = await sessionSocket(user.email);
  const first = await call(server.url, 'POST', '/authentication/refresh', { cookie: a.cookie });
  assert.equal(first.status, 200);
  assert.equal((await call(server.url, 'POST', '/authentication/refresh', { cookie: a.cookie })).status, 401, 'the old cookie again');
  await assertEnded(a.client, 'the revoked family');
});

test('two instances sharing Redis: a logout on one closes the session\'s socket on the other', { timeout: 20_000, skip: !process.env.TEST_REDIS_URL && 'TEST_REDIS_URL unset' }, async () => {
  const second = await startTestServer({ shareWith: server });
  try {
    const user = await server.createUser();
    const a = await sessionSocket(user.email);
    assert.equal((await call(second.url, 'POST', '/authentication/logout', { cookie: a.cookie })).status, 200);
    await assertEnded(a.client, 'closed on the other instance');
  } finally {
    await second.close();
  }
});
