/**
 * Crypto checkout end to end on the real server: invoices from the sandbox, BTCPay Server
 * and NOWPayments (their APIs stubbed on loopback, their webhooks signed as they sign them),
 * payments applied through the one ingress, the websocket telling the invoice's owner
 * (and nobody else) what the database says.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createHmac, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { eventually, startTestServer, type TestServer } from '../support/harness';
import { call, connectWebSocket as connect, type SocketClient as Client } from '../support/helpers';
import { createQueueSystem, type QueueSystem } from '../../src/infra/queues';
import { simulateCryptoPayment, signSandboxBody, type SimulatedStatus } from '../../src/payments/crypto/sandbox';
import { nowpaymentsSignature } from '../../src/payments/crypto/nowpayments';
import { cliArgs } from '../../../scripts/lib/cli-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fixture = (name: string) => fs.readFileSync(path.join(ROOT, 'server/test/fixtures', name), 'utf8');
const fill = (text: string, values: Record<string, string>) => Object.entries(values).reduce((t, [k, v]) => t.split(k).join(v), text);

/** A signed-in user with a websocket authenticated as them. */
async function buyer(server: TestServer) {
  const user = await server.createUser();
  const { token } = await server.login(user.email);
  const client = await connect(server);
  client.send({ type: 'auth', token });
  assert.deepEqual(await client.next(), { type: 'auth', ok: true });
  return { ...user, token, client };
}

async function invoice(server: TestServer, token: string, sku = 'search-credits', quantity = 100) {
  const reply = await call(server.url, 'POST', '/payments/crypto-invoice', { token, body: { sku, quantity } });
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  return reply.body as { id: string; expiration: string; payment_options: { currency: string; paymentAddress: string; paymentFullString: string; currencyAmount: string; usdRate: number }[] };
}

async function join(client: Client, id: string) {
  client.send({ type: 'action', action: 'join-channel', channel: `crypto-payment-${id}` });
  assert.deepEqual(await client.next(), { type: 'joined', channel: `crypto-payment-${id}` });
}

async function payment(server: TestServer, id: string) {
  return server.runtime.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

async function credits(server: TestServer, userId: string) {
  const user = await server.runtime.db.selectFrom('users').select('search_credits').where('id', '=', userId).executeTakeFirstOrThrow();
  const ledger = await server.runtime.db.selectFrom('credit_ledger').select('reference').where('user_id', '=', userId).execute();
  return { balance: user.search_credits, ledgerRows: ledger.length };
}

/** Every stored event of `provider` applied (the worker is asynchronous). */
async function allApplied(server: TestServer, provider: string) {
  await eventually(async () => {
    const open = await server.runtime.db.selectFrom('payment_events').select('id').where('provider', '=', provider).where('processed_at', 'is', null).execute();
    return open.length === 0;
  });
}

async function eventCount(server: TestServer, provider: string) {
  const rows = await server.runtime.db.selectFrom('payment_events').select('id').where('provider', '=', provider).execute();
  return rows.length;
}

describe('sandbox provider', () => {
  let server: TestServer;
  let queues: QueueSystem;
  const simulate = (paymentId: string, status?: SimulatedStatus, eventId?: string) =>
    simulateCryptoPayment({ config: server.runtime.config, db: server.runtime.db, queues }, { paymentId, status, eventId });

  before(async () => {
    server = await startTestServer();
    const config = server.runtime.config;
    queues = createQueueSystem({ connectionString: server.runtime.connectionString, redisUrl: config.REDIS_URL, namespace: server.namespace });
  });
  after(async () => {
    await queues.close();
    await server.close();
  });

  test('invoice for all five coins, the owner joins its channel, a settled payment completes it and grants once', async () => {
    const owner = await buyer(server);
    const created = await invoice(server, owner.token, 'search-credits', 100);
    assert.ok(Date.parse(created.expiration) > Date.now() + 55 * 60_000, 'an hour to pay by default');
    const options = Object.fromEntries(created.payment_options.map((o) => [o.currency, o]));
    assert.deepEqual(Object.keys(options).sort(), ['bch', 'btc', 'eth', 'ltc', 'xmr']);
    const pattern: Record<string, RegExp> = {
      btc: /^bitcoin:bc1q[a-z0-9]+\?amount=\d+\.\d+$/,
      ltc: /^litecoin:ltc1q[a-z0-9]+\?amount=\d+\.\d+$/,
      bch: /^bitcoincash:q[a-z0-9]+\?amount=\d+\.\d+$/,
      xmr: /^monero:4[1-9A-HJ-NP-Za-km-z]{94}\?tx_amount=\d+\.\d+$/,
      eth: /^ethereum:0x[0-9a-f]{40}\?value=\d+$/,
    };
    for (const [currency, option] of Object.entries(options)) {
      assert.match(option.paymentFullString, pattern[currency]!, currency);
      assert.ok(option.paymentFullString.includes(option.paymentAddress), `${currency} URI carries the address`);
      // $5.00 at the sandbox's fixed rate, never under-asked.
      assert.ok(Number(option.currencyAmount) * option.usdRate >= 5 - 1e-9, currency);
    }
    // The dashboard encodes only the address for eth; it is a bare 0x address.
    assert.match(options.eth!.paymentAddress, /^0x[0-9a-f]{40}$/);
    assert.equal(options.eth!.paymentFullString, `ethereum:${options.eth!.paymentAddress}?value=${BigInt(options.eth!.currencyAmount.replace('.', '')) * 10n ** 10n}`);

    const again = await call(server.url, 'GET', `/payments/crypto-invoice/${created.id}`, { token: owner.token });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, { ...created, status: 'pending' });

    await join(owner.client, created.id);
    await simulate(created.id);
    assert.deepEqual(await owner.client.next(), { type: 'message', channel: `crypto-payment-${created.id}`, data: { status: 'complete' } });
    assert.equal((await payment(server, created.id)).status, 'paid');
    assert.deepEqual(await credits(server, owner.id), { balance: 100, ledgerRows: 1 });
    owner.client.socket.close();
  });

  test('payment:simulate from the CLI pays the invoice through the running server', async () => {
    const owner = await buyer(server);
    const created = await invoice(server, owner.token, 'whois-credits', 50);
    await join(owner.client, created.id);
    const config = server.runtime.config;
    const result = spawnSync(
      process.execPath,
      [...cliArgs('admin'), 'payment:simulate', '--invoice', created.id, '--namespace', server.namespace],
      {
        cwd: ROOT,
        encoding: 'utf8',
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'test',
          DATABASE_URL: config.DATABASE_URL,
          DATA_DIR: config.dataDir,
          ...(config.REDIS_URL ? { REDIS_URL: config.REDIS_URL } : {}),
        },
      },
    );
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /Simulated settled/);
    assert.deepEqual((await owner.client.next(20_000)).data, { status: 'complete' });
    const user = await server.runtime.db.selectFrom('users').select('whois_credits').where('id', '=', owner.id).executeTakeFirstOrThrow();
    assert.equal(user.whois_credits, 50);
    const unknown = spawnSync(process.execPath, [...cliArgs('admin'), 'payment:simulate', '--invoice', randomUUID()], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, NODE_ENV: 'test', DATABASE_URL: config.DATABASE_URL, DATA_DIR: config.dataDir },
    });
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /no sandbox crypto invoice/);
    owner.client.socket.close();
  });

  test('underpaid: the page hears partial, the payment stays pending and nothing is granted', async () => {
    const owner = await buyer(server);
    const created = await invoice(server, owner.token);
    await join(owner.client, created.id);
    await simulate(created.id, 'partial');
    const message = await owner.client.next();
    assert.equal(message.data.status, 'partial');
    assert.equal(message.data.currency, 'btc');
    const row = await payment(server, created.id);
    assert.equal(row.status, 'pending');
    assert.equal(row.details.amount_received, (Number(created.payment_options.find((o) => o.currency === 'btc')!.currencyAmount) / 2).toFixed(8));
    assert.deepEqual(await credits(server, owner.id), { balance: 0, ledgerRows: 0 });
    owner.client.socket.close();
  });

  test('overpaid: paid, granted once, the overpayment noted', async () => {
    const owner = await buyer(server);
    const created = await invoice(server, owner.token);
    await join(owner.client, created.id);
    await simulate(created.id, 'overpaid');
    assert.deepEqual((await owner.client.next()).data, { status: 'complete' });
    const row = await payment(server, created.id);
    assert.equal(row.status, 'paid');
    assert.equal(row.details.overpaid, true);
    assert.deepEqual(await credits(server, owner.id), { balance: 100, ledgerRows: 1 });
    owner.client.socket.close();
  });

  test('expired: nothing granted and the page hears it; a payment arriving later still pays', async () => {
    const owner = await buyer(server);
    const created = await invoice(server, owner.token);
    await join(owner.client, created.id);
    await simulate(created.id, 'expired');
    assert.deepEqual((await owner.client.next()).data, { status: 'expired' });
    assert.equal((await payment(server, created.id)).status, 'expired');
    assert.deepEqual(await credits(server, owner.id), { balance: 0, ledgerRows: 0 });
    await simulate(created.id, 'settled');
    assert.deepEqual((await owner.client.next()).data, { status: 'complete' });
    assert.equal((await payment(server, created.id)).status, 'paid');
    assert.deepEqual(await credits(server, owner.id), { balance: 100, ledgerRows: 1 });
    owner.client.socket.close();
  });

  test('confirmed twice (the same event again, then another settled event): one grant, one message', async () => {
    const owner = await buyer(server);
    const created = await invoice(server, owner.token);
    await join(owner.client, created.id);
    const eventId = await simulate(created.id, 'settled');
    await Promise.all([simulate(created.id, 'settled', eventId), simulate(created.id, 'settled', eventId), simulate(created.id, 'overpaid')]);
    assert.deepEqual((await owner.client.next()).data, { status: 'complete' });
    await allApplied(server, 'sandbox-crypto');
    assert.deepEqual(await credits(server, owner.id), { balance: 100, ledgerRows: 1 });
    // Nothing more was published: the next message is the answer to this join.
    owner.client.send({ type: 'action', action: 'join-channel', channel: 'test' });
    assert.deepEqual(await owner.client.next(), { type: 'joined', channel: 'test' });
    owner.client.socket.close();
  });

  test("another user can neither join the invoice's channel nor read it, and hears nothing", async () => {
    const owner = await buyer(server);
    const stranger = await buyer(server);
    const created = await invoice(server, owner.token);
    stranger.client.send({ type: 'action', action: 'join-channel', channel: `crypto-payment-${created.id}` });
    assert.deepEqual(await stranger.client.next(), { type: 'error', channel: `crypto-payment-${created.id}`, error: 'Not Found' });
    assert.equal((await call(server.url, 'GET', `/payments/crypto-invoice/${created.id}`, { token: stranger.token })).status, 404);
    assert.equal((await call(server.url, 'GET', `/payments/crypto-invoice/not-a-uuid`, { token: owner.token })).status, 404);
    await join(owner.client, created.id);
    await simulate(created.id);
    assert.deepEqual((await owner.client.next()).data, { status: 'complete' });
    stranger.client.send({ type: 'action', action: 'join-channel', channel: 'test' });
    assert.deepEqual(await stranger.client.next(), { type: 'joined', channel: 'test' }, 'the stranger received nothing before');
    owner.client.socket.close();
    stranger.client.socket.close();
  });

  test('refused: recurring SKUs, unknown properties, no token; nothing is opened', async () => {
    const owner = await buyer(server);
    const before = await server.runtime.db.selectFrom('payments').select('id').where('user_id', '=', owner.id).execute();
    for (const body of [{ sku: 'search-sub-monthly', quantity: 1 }, { sku: 'enterprise-sub-yearly', quantity: 1 }, { sku: 'search-credits', quantity: 100, price: 1 }]) {
      const reply = await call(server.url, 'POST', '/payments/crypto-invoice', { token: owner.token, body });
      assert.equal(reply.status, 400, JSON.stringify(body));
    }
    assert.equal((await call(server.url, 'POST', '/payments/crypto-invoice', { body: { sku: 'search-credits', quantity: 100 } })).status, 401);
    const later = await server.runtime.db.selectFrom('payments').select('id').where('user_id', '=', owner.id).execute();
    assert.equal(later.length, before.length);
    owner.client.socket.close();
  });

  test('the sandbox webhook takes only bodies signed with its secret; a bad signature stores nothing', async () => {
    const owner = await buyer(server);
    const created = await invoice(server, owner.token);
    const body = JSON.stringify({ eventId: randomUUID(), invoiceId: created.id, status: 'settled', currency: 'btc', amountReceived: '1', createdAt: new Date().toISOString() });
    const storedBefore = await eventCount(server, 'sandbox-crypto');
    const bad = await call(server.url, 'POST', '/webhooks/sandbox-crypto', { body: JSON.parse(body), headers: { 'x-sandbox-signature': signSandboxBody('wrong-secret', body) } });
    assert.equal(bad.status, 400);
    assert.equal(await eventCount(server, 'sandbox-crypto'), storedBefore);
    assert.equal((await payment(server, created.id)).status, 'pending');
    const { value: secret } = await server.runtime.db.selectFrom('app_secrets').select('value').where('name', '=', 'sandbox-crypto-webhook').executeTakeFirstOrThrow();
    server.markSecret(secret);
    const good = await call(server.url, 'POST', '/webhooks/sandbox-crypto', { body: JSON.parse(body), headers: { 'x-sandbox-signature': signSandboxBody(secret, body) } });
    assert.equal(good.status, 200);
    await eventually(async () => (await payment(server, created.id)).status === 'paid');
    owner.client.socket.close();
  });
});

/** A loopback stub of a provider's API; `handle` answers each request. */
async function stub(handle: (req: { method: string; url: string; headers: http.IncomingHttpHeaders; body: any }) => { status: number; body: unknown }) {
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      const answer = handle({ method: req.method!, url: req.url!, headers: req.headers, body: text ? JSON.parse(text) : undefined });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('BTCPay Greenfield', () => {
  const STORE = 'Store7xQk2';
  const KEY = 'btcpay-api-key-0123456789';
  const SECRET = 'btcpay-webhook-secret-abcdef';
  let server: TestServer;
  let api: Awaited<ReturnType<typeof stub>>;
  /** Invoice state the stub answers with, per BTCPay invoice id. */
  const invoices = new Map<string, { orderId: string; status: string; additionalStatus: string; paid: string }>();
  let counter = 0;

  before(async () => {
    api = await stub(({ method, url, headers, body }) => {
      if (headers.authorization !== `token ${KEY}`) return { status: 401, body: { code: 'unauthenticated' } };
      const base = `/api/v1/stores/${STORE}/invoices`;
      if (method === 'POST' && url === base) {
        assert.equal(body.currency, 'USD');
        const id = `BTCPAYINV${++counter}`;
        invoices.set(id, { orderId: body.metadata.orderId, status: 'New', additionalStatus: 'None', paid: '0' });
        return { status: 200, body: JSON.parse(fill(fixture('btcpay/invoice-created.json'), { __INVOICE_ID__: id, __STORE_ID__: STORE, __ORDER_ID__: body.metadata.orderId })) };
      }
      const match = new RegExp(`^${base}/([A-Za-z0-9]+)(/payment-methods)?$`).exec(url);
      const state = match ? invoices.get(match[1]!) : undefined;
      if (method !== 'GET' || !match || !state) return { status: 404, body: { code: 'invoice-not-found' } };
      if (match[2]) {
        const methods = JSON.parse(fixture('btcpay/payment-methods.json'));
        methods[0].paymentMethodPaid = state.paid;
        return { status: 200, body: methods };
      }
      const invoiceBody = JSON.parse(fill(fixture('btcpay/invoice-created.json'), { __INVOICE_ID__: match[1]!, __STORE_ID__: STORE, __ORDER_ID__: state.orderId }));
      return { status: 200, body: { ...invoiceBody, status: state.status, additionalStatus: state.additionalStatus } };
    });
    server = await startTestServer({
      env: { CRYPTO_PROVIDER: 'btcpay', BTCPAY_URL: api.url, BTCPAY_STORE_ID: STORE, BTCPAY_API_KEY: KEY, BTCPAY_WEBHOOK_SECRET: SECRET },
    });
    server.markSecret(KEY, SECRET);
  });
  after(async () => {
    await server.close();
    await api.close();
  });

  const btcpayRef = async (paymentId: string) => (await payment(server, paymentId)).provider_ref!;
  const deliver = (name: string, invoiceId: string, orderId: string, overrides: Record<string, unknown> = {}, secret = SECRET) => {
    const body = JSON.stringify({ ...JSON.parse(fill(fixture(`btcpay/${name}`), { __INVOICE_ID__: invoiceId, __STORE_ID__: STORE, __ORDER_ID__: orderId })), ...overrides });
    const sig = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    return fetch(`${server.url}/webhooks/btcpay`, { method: 'POST', headers: { 'content-type': 'application/json', 'btcpay-sig': sig }, body });
  };

  test('invoice from the store: btc, ltc and xmr on chain (Lightning left out), payment links used when given', async () => {
    const owner = await buyer(server);
    const created = await invoice(server, owner.token);
    assert.deepEqual(created.payment_options.map((o) => o.currency), ['btc', 'ltc', 'xmr']);
    const [btc, , xmr] = created.payment_options;
    assert.equal(btc!.paymentFullString, 'bitcoin:bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq?amount=0.00007692');
    assert.equal(btc!.usdRate, 65000);
    assert.equal(xmr!.paymentFullString, `monero:${xmr!.paymentAddress}?tx_amount=0.033333333334`);
    assert.match(await btcpayRef(created.id), /^BTCPAYINV\d+$/);
    owner.client.socket.close();
  });

  test('settled (re-fetched from BTCPay) pays once; a redelivery is stored once; a bad signature stores nothing', async () => {
    const owner = await buyer(server);
    const created = await invoice(server, owner.token);
    await join(owner.client, created.id);
    const ref = await btcpayRef(created.id);
    const before = await eventCount(server, 'btcpay');
    assert.equal((await deliver('webhook-invoice-settled.json', ref, created.id, {}, 'not-the-secret')).status, 400);
    assert.equal(await eventCount(server, 'btcpay'), before, 'nothing stored');

    invoices.get(ref)!.status = 'Settled';
    invoices.get(ref)!.paid = '0.00007692';
    const deliveryId = `DLV-${ref}`;
    assert.equal((await deliver('webhook-invoice-settled.json', ref, created.id, { deliveryId, originalDeliveryId: deliveryId })).status, 200);
    assert.deepEqual((await owner.client.next()).data, { status: 'complete' });
    assert.equal(
      (await deliver('webhook-invoice-settled.json', ref, created.id, { deliveryId: `${deliveryId}-again`, originalDeliveryId: deliveryId, isRedelivery: true })).status,
      200,
    );
    assert.equal(await eventCount(server, 'btcpay'), before + 1, 'the redelivery is the same event');
    await allApplied(server, 'btcpay');
    const row = await payment(server, created.id);
    assert.equal(row.status, 'paid');
    assert.equal(row.details.currency, 'btc');
    assert.deepEqual(await credits(server, owner.id), { balance: 100, ledgerRows: 1 });
    owner.client.socket.close();
  });

  test('partial payment stays pending; expiry ends it; paid late it still pays', async () => {
    const owner = await buyer(server);
    const created = await invoice(server, owner.token);
    await join(owner.client, created.id);
    const ref = await btcpayRef(created.id);
    const state = invoices.get(ref)!;
    Object.assign(state, { additionalStatus: 'PaidPartial', paid: '0.00003846' });
    await deliver('webhook-invoice-received-payment.json', ref, created.id, { deliveryId: `P-${ref}`, originalDeliveryId: null });
    assert.deepEqual((await owner.client.next()).data, { status: 'partial', currency: 'btc', amount_received: '0.00003846' });
    assert.equal((await payment(server, created.id)).status, 'pending');

    Object.assign(state, { status: 'Expired' });
    await deliver('webhook-invoice-expired.json', ref, created.id, { deliveryId: `E-${ref}`, originalDeliveryId: null });
    assert.deepEqual((await owner.client.next()).data, { status: 'expired' });
    assert.deepEqual(await credits(server, owner.id), { balance: 0, ledgerRows: 0 });

    Object.assign(state, { additionalStatus: 'PaidLate', paid: '0.00007692' });
    await deliver('webhook-invoice-received-payment.json', ref, created.id, { deliveryId: `L-${ref}`, originalDeliveryId: null, timestamp: 1764009999, afterExpiration: true });
    assert.deepEqual((await owner.client.next()).data, { status: 'complete' });
    assert.equal((await payment(server, created.id)).status, 'paid');
    assert.deepEqual(await credits(server, owner.id), { balance: 100, ledgerRows: 1 });
    owner.client.socket.close();
  });
});

describe('NOWPayments', () => {
  const KEY = 'nowpayments-api-key-0123456789';
  const IPN_SECRET = 'nowpayments-ipn-secret-abcdef';
  const ADDRESSES: Record<string, string> = {
    btc: 'bc1qnowpaymentsbtcaddress0000000000000000',
    ltc: 'ltc1qnowpaymentsltcaddress000000000000000',
    xmr: '47nowpaymentsxmraddress000000000000000000000000000000000000000000000000000000000000000000000',
    bch: 'bitcoincash:qnowpaymentsbchaddress00000000000000000000000',
    eth: '0x52908400098527886E0F7030069857D2E4169EE7',
  };
  const AMOUNTS: Record<string, string> = { btc: '0.0000769', ltc: '0.0714', xmr: '0.0333', bch: '0.0142', eth: '0.0016667' };
  let server: TestServer;
  let api: Awaited<ReturnType<typeof stub>>;
  let counter = 5_000_000_000;
  /** NOWPayments payment id → pay currency. */
  const created = new Map<string, string>();

  before(async () => {
    api = await stub(({ method, url, headers, body }) => {
      if (headers['x-api-key'] !== KEY) return { status: 401, body: { message: 'Invalid api key' } };
      if (method === 'GET' && url === '/v1/status') return { status: 200, body: { message: 'OK' } };
      if (method !== 'POST' || url !== '/v1/payment') return { status: 404, body: {} };
      assert.equal(body.price_currency, 'usd');
      assert.match(body.ipn_callback_url, /\/webhooks\/nowpayments$/);
      const id = String(++counter);
      created.set(id, body.pay_currency);
      const answer = JSON.parse(
        fill(fixture('nowpayments/payment-created.json'), {
          __PAYMENT_ID__: id,
          __PAY_ADDRESS__: ADDRESSES[body.pay_currency]!,
          __PAY_CURRENCY__: body.pay_currency,
          __ORDER_ID__: body.order_id,
        }),
      );
      return { status: 201, body: { ...answer, price_amount: body.price_amount, pay_amount: Number(AMOUNTS[body.pay_currency]) } };
    });
    server = await startTestServer({ env: { CRYPTO_PROVIDER: 'nowpayments', NOWPAYMENTS_API_URL: api.url, NOWPAYMENTS_API_KEY: KEY, NOWPAYMENTS_IPN_SECRET: IPN_SECRET } });
    server.markSecret(KEY, IPN_SECRET);
  });
  after(async () => {
    await server.close();
    await api.close();
  });

  const paymentIdFor = (currency: string, since: number) => [...created.entries()].find(([id, c]) => c === currency && Number(id) > since)![0];
  const ipn = (fields: { paymentId: string; orderId: string; currency: string; status: string; paid: string; updatedAt: number }, secret = IPN_SECRET) => {
    const p = {
      ...JSON.parse(fill(fixture('nowpayments/ipn-finished.json'), { __PAY_ADDRESS__: ADDRESSES[fields.currency]!, __PAY_CURRENCY__: fields.currency, __ORDER_ID__: fields.orderId })),
      payment_id: Number(fields.paymentId),
      payment_status: fields.status,
      pay_amount: Number(AMOUNTS[fields.currency]),
      actually_paid: Number(fields.paid),
      updated_at: fields.updatedAt,
    };
    // The body as NOWPayments sends it (their key order), signed over the sorted form.
    return fetch(`${server.url}/webhooks/nowpayments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-nowpayments-sig': nowpaymentsSignature(secret, p) },
      body: JSON.stringify(p),
    });
  };

  test('one NOWPayments payment per coin: all five, bch cashaddr and EIP-681 for eth', async () => {
    const owner = await buyer(server);
    const invoiceBody = await invoice(server, owner.token);
    const options = Object.fromEntries(invoiceBody.payment_options.map((o) => [o.currency, o]));
    assert.deepEqual(Object.keys(options).sort(), ['bch', 'btc', 'eth', 'ltc', 'xmr']);
    assert.equal(options.bch!.paymentFullString, `${ADDRESSES.bch}?amount=0.0142`);
    assert.equal(options.eth!.paymentFullString, `ethereum:${ADDRESSES.eth}?value=1666700000000000`);
    assert.equal(options.xmr!.paymentFullString, `monero:${ADDRESSES.xmr}?tx_amount=0.0333`);
    assert.equal(options.btc!.paymentFullString, `bitcoin:${ADDRESSES.btc}?amount=0.0000769`);
    owner.client.socket.close();
  });

  test('partially paid stays pending; finished pays once (also when notified twice); a bad signature or a foreign payment id changes nothing', async () => {
    const owner = await buyer(server);
    const since = counter;
    const invoiceBody = await invoice(server, owner.token);
    await join(owner.client, invoiceBody.id);
    const ltc = paymentIdFor('ltc', since);
    const base = { paymentId: ltc, orderId: invoiceBody.id, currency: 'ltc' };
    const before = await eventCount(server, 'nowpayments');
    assert.equal((await ipn({ ...base, status: 'finished', paid: '0.0714', updatedAt: 1764000100000 }, 'wrong-secret')).status, 400);
    assert.equal(await eventCount(server, 'nowpayments'), before, 'nothing stored');
    // A payment id NOWPayments never created for this invoice (signed, but not ours): ignored.
    assert.equal((await ipn({ ...base, paymentId: '42', status: 'finished', paid: '0.0714', updatedAt: 1764000150000 })).status, 200);

    assert.equal((await ipn({ ...base, status: 'partially_paid', paid: '0.03', updatedAt: 1764000200000 })).status, 200);
    assert.deepEqual((await owner.client.next()).data, { status: 'partial', currency: 'ltc', amount_received: '0.03' });
    assert.equal((await payment(server, invoiceBody.id)).status, 'pending');
    assert.deepEqual(await credits(server, owner.id), { balance: 0, ledgerRows: 0 });

    const finished = { ...base, status: 'finished', paid: '0.0800', updatedAt: 1764000300000 };
    assert.equal((await ipn(finished)).status, 200);
    assert.equal((await ipn(finished)).status, 200);
    assert.equal((await ipn({ ...finished, status: 'confirmed', updatedAt: 1764000250000 })).status, 200);
    assert.deepEqual((await owner.client.next()).data, { status: 'complete' });
    await allApplied(server, 'nowpayments');
    const row = await payment(server, invoiceBody.id);
    assert.equal(row.status, 'paid');
    assert.equal(row.details.overpaid, true);
    assert.equal(row.details.currency, 'ltc');
    assert.deepEqual(await credits(server, owner.id), { balance: 100, ledgerRows: 1 });
    owner.client.socket.close();
  });

  test('expired ends the invoice; refunded after payment takes the credits back', async () => {
    const owner = await buyer(server);
    const since = counter;
    const invoiceBody = await invoice(server, owner.token);
    await join(owner.client, invoiceBody.id);
    const btc = paymentIdFor('btc', since);
    const eth = paymentIdFor('eth', since);
    await ipn({ paymentId: btc, orderId: invoiceBody.id, currency: 'btc', status: 'expired', paid: '0', updatedAt: 1764000100000 });
    assert.deepEqual((await owner.client.next()).data, { status: 'expired' });
    await ipn({ paymentId: eth, orderId: invoiceBody.id, currency: 'eth', status: 'finished', paid: '0.0016667', updatedAt: 1764000200000 });
    assert.deepEqual((await owner.client.next()).data, { status: 'complete' });
    assert.deepEqual(await credits(server, owner.id), { balance: 100, ledgerRows: 1 });
    await ipn({ paymentId: eth, orderId: invoiceBody.id, currency: 'eth', status: 'refunded', paid: '0.0016667', updatedAt: 1764000300000 });
    assert.deepEqual((await owner.client.next()).data, { status: 'refunded' });
    assert.equal((await payment(server, invoiceBody.id)).status, 'refunded');
    assert.equal((await credits(server, owner.id)).balance, 0);
    owner.client.socket.close();
  });
});
