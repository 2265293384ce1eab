/**
 * Email and SMS alerts through the real `deliver` queue on both job backends: the alert
 * mail reaches a real SMTP peer with List-Unsubscribe and List-Unsubscribe-Post, whose
 * link (GET: a confirmation page; POST: RFC 8058 one-click) disables that email channel;
 * SMS through the outbox provider and through a Twilio stub (Messages.json with Basic
 * auth, then a signed StatusCallback the server verifies); Twilio's signature fixture.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { SMTPServer } from 'smtp-server';
import { eventually, startTestServer, type TestServer } from '../support/harness';
import { twilioSignature, verifyTwilioSignature, unsubscribeKey, unsubscribeToken, verifyUnsubscribeToken } from '../../src/delivery/signing';
import type { QueueSystem } from '../../src/infra/queues';
import { BACKENDS, FAST_DELIVERY_ENV, attemptsOf, createAlert, queueClient, settled } from '../support/delivery-fixtures';

describe('signatures (no server)', () => {
  test("Twilio's documented X-Twilio-Signature vector", () => {
    const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
    const params = { CallSid: 'CA1234567890ABCDE', Caller: '+12349013030', Digits: '1234', From: '+12349013030', To: '+18005551212' };
    assert.equal(twilioSignature('12345', url, params), '0/KCTR6DLpKmkAf8muzZqo1nDgQ=');
    assert.ok(verifyTwilioSignature('12345', url, params, '0/KCTR6DLpKmkAf8muzZqo1nDgQ='));
    assert.ok(!verifyTwilioSignature('12345', url, { ...params, Digits: '1235' }, '0/KCTR6DLpKmkAf8muzZqo1nDgQ='));
    assert.ok(!verifyTwilioSignature('54321', url, params, '0/KCTR6DLpKmkAf8muzZqo1nDgQ='));
  });

  test('unsubscribe tokens name one channel and cannot be forged or moved', () => {
    const key = unsubscribeKey('server-secret');
    const token = unsubscribeToken(key, '42');
    assert.equal(verifyUnsubscribeToken(key, token), '42');
    assert.equal(verifyUnsubscribeToken(key, token.replace(/^42\./, '43.')), null, 'another channel id with the same mac');
    assert.equal(verifyUnsubscribeToken(unsubscribeKey('other-secret'), token), null);
    assert.equal(verifyUnsubscribeToken(key, `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`), null);
    assert.equal(verifyUnsubscribeToken(key, 'garbage'), null);
  });
});

/** Headers of a raw RFC 5322 message, unfolded, by lower-case name. */
function mailHeaders(raw: string): Map<string, string> {
  const head = raw.split(/\r?\n\r?\n/)[0]!.replace(/\r?\n[ \t]+/g, ' ');
  const headers = new Map<string, string>();
  for (const line of head.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) headers.set(line.slice(0, i).toLowerCase(), line.slice(i + 1).trim());
  }
  return headers;
}

interface TwilioStub {
  app: FastifyInstance;
  url: string;
  messages: { sid: string; auth: string | undefined; form: Record<string, string> }[];
  callbacks: { status: number; sid: string }[];
}

/** Twilio's Messages API on loopback: records each message, answers a SID, then posts a signed "delivered". */
async function startTwilioStub(accountSid: string, authToken: string): Promise<TwilioStub> {
  const app = Fastify();
  const stub: TwilioStub = { app, url: '', messages: [], callbacks: [] };
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );
  app.post<{ Params: { sid: string }; Body: Record<string, string> }>('/2010-04-01/Accounts/:sid/Messages.json', async (request, reply) => {
    const expected = `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`;
    if (request.params.sid !== accountSid || request.headers.authorization !== expected) return reply.code(401).send({ code: 20003, message: 'Authenticate' });
    const form = request.body;
    if (form.To === '+15005550001') return reply.code(400).send({ code: 21211, message: "The 'To' number is not a valid phone number." });
    const sid = `SM${randomBytes(16).toString('hex')}`;
    stub.messages.push({ sid, auth: request.headers.authorization, form });
    setTimeout(async () => {
      // Independent of the server's code: Twilio's rule written out here.
      const params: Record<string, string> = { AccountSid: accountSid, MessageSid: sid, MessageStatus: 'delivered', SmsSid: sid, SmsStatus: 'delivered', To: form.To! };
      const data = Object.keys(params).sort().reduce((acc, k) => acc + k + params[k], form.StatusCallback!);
      const signature = createHmac('sha1', authToken).update(data).digest('base64');
      const response = await fetch(form.StatusCallback!, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
        body: new URLSearchParams(params).toString(),
      });
      stub.callbacks.push({ status: response.status, sid });
    }, 50);
    return reply.code(201).send({ sid, status: 'queued', to: form.To, body: form.Body });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  stub.url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return stub;
}

for (const backend of BACKENDS) {
  describe(`email alerts over a real SMTP peer, on ${backend}`, () => {
    const received: { to: string[]; raw: string }[] = [];
    let smtp: SMTPServer;
    let server: TestServer;
    let queues: QueueSystem;
    before(async () => {
      smtp = new SMTPServer({
        authOptional: true,
        disabledCommands: ['STARTTLS'],
        onData(stream, session, callback) {
          let raw = '';
          stream.on('data', (c: Buffer) => (raw += c.toString('utf8')));
          stream.on('end', () => {
            received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
            callback();
          });
        },
      });
      await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
      const port = (smtp.server.address() as AddressInfo).port;
      server = await startTestServer({
        redis: backend === 'redis',
        env: { ...FAST_DELIVERY_ENV, SMTP_URL: `smtp://127.0.0.1:${port}`, MAIL_FROM: 'Alerts <alerts@example.com>' },
      });
      queues = queueClient(server);
    });
    after(async () => {
      await queues.close();
      await server.close();
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    });

    test('the alert mail arrives with List-Unsubscribe; GET confirms, the one-click POST disables the channel', async () => {
      const address = `alerts-${randomBytes(4).toString('hex')}@example.com`;
      const alert = await createAlert(server, queues, { kind: 'email', value: address });
      const row = await settled(server, alert.deliveryId);
      assert.equal(row.status, 'sent');
      const mail = await eventually(async () => received.find((m) => m.to.includes(address)));
      const headers = mailHeaders(mail.raw);
      assert.match(headers.get('subject') ?? '', /new results for your monitored values/);
      assert.equal(headers.get('list-unsubscribe-post'), 'List-Unsubscribe=One-Click');
      const match = /^<(http:\/\/127\.0\.0\.1:\d+\/monitoring\/unsubscribe\?t=[^>]+)>$/.exec(headers.get('list-unsubscribe') ?? '');
      assert.ok(match, `List-Unsubscribe: ${headers.get('list-unsubscribe')}`);
      const link = match[1]!;
      // The body (quoted-printable on the wire) as stored in the outbox the SMTP job sent from.
      const stored = await server.waitForMail(address, /new results/);
      assert.ok(stored.links.includes(`${server.url}/monitoring/reports/${alert.reportId}`), 'links to the report');
      assert.ok(stored.links.includes(link), 'the unsubscribe link in the text too');
      assert.match(stored.text, /3 new records in Example Breach 2026/);

      const channelActive = async () =>
        (await server.runtime.db.selectFrom('notification_channels').select(['active', 'disabled_reason']).where('id', '=', alert.channelId).executeTakeFirstOrThrow());
      const page = await fetch(link, { headers: { accept: 'text/html' } });
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.match(html, /<form method="post"/);
      assert.ok(html.includes(address));
      assert.equal((await channelActive()).active, true, 'a GET (a mail scanner) changes nothing');

      const forged = await fetch(link.slice(0, -2) + (link.endsWith('AA') ? 'BB' : 'AA'), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
      assert.equal(forged.status, 400);
      assert.equal((await channelActive()).active, true);

      const oneClick = await fetch(link, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
      assert.equal(oneClick.status, 200);
      const after = await channelActive();
      assert.equal(after.active, false);
      assert.match(after.disabled_reason ?? '', /Unsubscribed/);

      // The next alert for that channel is not sent.
      const before = received.length;
      const delivery = await server.runtime.db
        .insertInto('deliveries')
        .values({ user_id: alert.userId, report_id: (await createAlert(server, queues, { kind: 'phone', value: '15550100' }, { id: alert.userId, email: alert.userEmail })).reportId, channel_id: alert.channelId, kind: 'email', target: address })
        .returning('id')
        .executeTakeFirstOrThrow();
      await queues.enqueue('deliver', { deliveryId: delivery.id }, `deliver-${delivery.id}`);
      const next = await settled(server, delivery.id);
      assert.equal(next.status, 'dead');
      assert.equal(next.last_error, 'channel removed or disabled');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(received.filter((m) => m.to.includes(address)).length, 1, 'no second alert mail');
      assert.ok(received.length >= before);
    });
  });

  describe(`SMS alerts on ${backend}`, () => {
    test('the default outbox provider keeps the SMS in sms_outbox', async () => {
      const server = await startTestServer({ redis: backend === 'redis', env: FAST_DELIVERY_ENV });
      const queues = queueClient(server);
      try {
        const alert = await createAlert(server, queues, { kind: 'phone', value: '15550123' });
        assert.equal((await settled(server, alert.deliveryId)).status, 'sent');
        const sms = await server.runtime.db.selectFrom('sms_outbox').selectAll().where('to_number', '=', '15550123').execute();
        assert.equal(sms.length, 1);
        assert.equal(sms[0]!.provider, 'outbox');
        assert.match(sms[0]!.body, /3 new record\(s\) in Example Breach 2026/);
        assert.ok(sms[0]!.body.includes(`/monitoring/reports/${alert.reportId}`));
      } finally {
        await queues.close();
        await server.close();
      }
    });

    test('Twilio: Messages.json with Basic auth, then its signed status callback updates the SMS; a forged callback is refused', async () => {
      const accountSid = `AC${randomBytes(16).toString('hex')}`;
      const authToken = randomBytes(16).toString('hex');
      const stub = await startTwilioStub(accountSid, authToken);
      const server = await startTestServer({
        redis: backend === 'redis',
        env: { ...FAST_DELIVERY_ENV, SMS_PROVIDER: 'twilio', TWILIO_API_URL: stub.url, TWILIO_ACCOUNT_SID: accountSid, TWILIO_AUTH_TOKEN: authToken, TWILIO_FROM: '+15005550006' },
      });
      server.markSecret(authToken);
      const queues = queueClient(server);
      try {
        const alert = await createAlert(server, queues, { kind: 'phone', value: '15550199' });
        assert.equal((await settled(server, alert.deliveryId)).status, 'sent');
        assert.equal(stub.messages.length, 1);
        const { form, sid } = stub.messages[0]!;
        assert.equal(form.To, '+15550199');
        assert.equal(form.From, '+15005550006');
        assert.equal(form.StatusCallback, `${server.url}/webhooks/twilio/status`);
        assert.match(form.Body ?? '', /Example Breach 2026/);
        const row = await eventually(async () => {
          const r = await server.runtime.db.selectFrom('sms_outbox').selectAll().where('provider_id', '=', sid).executeTakeFirst();
          return r?.status === 'delivered' ? r : undefined;
        });
        assert.equal(row.provider, 'twilio');
        assert.deepEqual(stub.callbacks, [{ status: 204, sid }]);

        const forged = await fetch(`${server.url}/webhooks/twilio/status`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature('wrong-token', `${server.url}/webhooks/twilio/status`, { MessageSid: sid, MessageStatus: 'failed' }) },
          body: new URLSearchParams({ MessageSid: sid, MessageStatus: 'failed' }).toString(),
        });
        assert.equal(forged.status, 403);
        const unchanged = await server.runtime.db.selectFrom('sms_outbox').select('status').where('provider_id', '=', sid).executeTakeFirstOrThrow();
        assert.equal(unchanged.status, 'delivered');

        // A number Twilio refuses (400) is not retried: dead after one attempt.
        const refused = await createAlert(server, queues, { kind: 'phone', value: '15005550001' });
        const dead = await settled(server, refused.deliveryId);
        assert.equal(dead.status, 'dead');
        assert.equal((await attemptsOf(server, refused.deliveryId)).length, 1);
        assert.match(dead.last_error ?? '', /Twilio answered 400 \(code 21211\)/);
      } finally {
        await queues.close();
        await server.close();
        await stub.app.close();
      }
    });
  });
}
