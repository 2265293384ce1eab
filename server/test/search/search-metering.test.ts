/**
 * Searches by accounts well within their limits are counted and charged in process and
 * written in batches (server/src/search/search-meter.ts). These tests hold the batched
 * path to the rules of the exact one: every charge has its ledger row, the balance never
 * goes below zero (with several instances too), a replaced key stops at once, pending
 * usage is written on shutdown.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyGrant } from '../../src/users/user-repository';
import { eventually, startTestServer, type TestServer } from '../support/harness';
import { call, callV2 } from '../support/helpers';

let server: TestServer;
const FAST = { API_RATE_BURST: '1000', API_RATE_PER_SECOND: '1000', SEARCH_CONCURRENCY_PER_USER: '1000' };

before(async () => {
  server = await startTestServer({ env: FAST });
  await server.ingest('Metering Source', [{ email: 'meter@example.com', username: 'meter_user', password: 'pw' }]);
});
after(() => server.close());

const v2 = (target: TestServer, key: string) => callV2(target, key, { query: 'email:meter@example.com' });

async function dbState(userId: string) {
  const db = server.runtime.db;
  const user = await db.selectFrom('users').select('search_credits').where('id', '=', userId).executeTakeFirstOrThrow();
  const ledger = await db.selectFrom('credit_ledger').select(['delta', 'balance_after']).where('user_id', '=', userId).orderBy('id').execute();
  const counts = await db.selectFrom('search_counts').select('searches').where('user_id', '=', userId).execute();
  return { balance: user.search_credits, ledger, searches: counts.reduce((sum, row) => sum + row.searches, 0) };
}

/** Balances after each charge, from `from` down, as the ledger must show them. */
const chain = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ delta: -1, balance_after: from - 1 - i }));

describe('batched search counts and charges', () => {
  test('a rich account is charged in memory; the write keeps every count and one ledger row per search', async () => {
    const user = await server.createUser({ searchDays: 30, searchCredits: 1000, apiKey: true });
    const balances: number[] = [];
    for (let i = 0; i < 20; i++) {
      const reply = await v2(server, user.apiKey!);
      assert.equal(reply.status, 200);
      balances.push(reply.body.balance);
    }
    assert.deepEqual(balances, Array.from({ length: 20 }, (_, i) => 999 - i), 'the balance answered is exact on one instance');
    const state = await eventually(async () => {
      const s = await dbState(user.id);
      return s.searches === 20 && s.balance === 980 && s.ledger.length === 20 && s;
    });
    assert.deepEqual(state.ledger, chain(1000, 20));
  });

  test('a refused query costs a rich account nothing: not counted, not charged', async () => {
    const user = await server.createUser({ searchDays: 30, searchCredits: 1000, apiKey: true });
    const send = (body: unknown) => callV2(server, user.apiKey, body);
    assert.equal((await send({ query: 'meter@example.com' })).body.balance, 999);
    const refused = await send({ query: 'email:/(a)\\1/', regex: true });
    assert.equal(refused.status, 400, 'backreferences are refused');
    assert.equal((await send({ query: '*meter', wildcard: true })).status, 400);
    assert.equal((await send({ query: 'meter@example.com' })).body.balance, 998, 'the refusals charged nothing');
    const state = await eventually(async () => {
      const s = await dbState(user.id);
      return s.ledger.length === 2 && s;
    });
    assert.deepEqual([state.searches, state.balance], [2, 998], 'and counted nothing');
    // Still a 400 for a bad query from an account that may not search at all, as on the exact path.
    const unsubscribed = await server.createUser({ searchCredits: 1000, apiKey: true });
    const bad = await callV2(server, unsubscribed.apiKey, { query: '*meter', wildcard: true });
    assert.equal(bad.status, 400);
  });

  test('crossing the reserve: what is pending is written before the first exact charge, the ledger stays one chain', async () => {
    const reserve = server.runtime.config.SEARCH_BATCH_RESERVE;
    const user = await server.createUser({ searchDays: 30, searchCredits: reserve + 3, apiKey: true });
    const balances: number[] = [];
    for (let i = 0; i < 10; i++) balances.push((await v2(server, user.apiKey!)).body.balance);
    assert.deepEqual(balances, Array.from({ length: 10 }, (_, i) => reserve + 2 - i));
    // The exact charges are written at once; the batched ones before them.
    const state = await dbState(user.id);
    assert.equal(state.balance, reserve - 7);
    assert.deepEqual(state.ledger, chain(reserve + 3, 10));
    assert.equal(state.searches, 10);
  });

  test('a replaced key stops working at once, even while its account is kept in memory', async () => {
    const user = await server.createUser({ searchDays: 30, searchCredits: 1000 });
    const { token } = await server.login(user.email);
    const key1 = (await call(server.url, 'POST', '/user/update-key', { token })).body.api_key as string;
    server.markSecret(key1);
    // The second request finds key1's hash remembered by the /v2 guard (auth/api-key-service.ts):
    // that must not keep it working once replaced.
    assert.equal((await v2(server, key1)).status, 200);
    assert.equal((await v2(server, key1)).status, 200);
    const key2 = (await call(server.url, 'POST', '/user/update-key', { token })).body.api_key as string;
    server.markSecret(key2);
    assert.equal((await v2(server, key1)).status, 400, 'the old key is refused by the very next request');
    assert.equal((await v2(server, key2)).status, 200);
  });

  test('a closed account’s key stops working at once', async () => {
    const user = await server.createUser({ searchDays: 30, searchCredits: 1000, apiKey: true });
    const { token } = await server.login(user.email);
    assert.equal((await v2(server, user.apiKey!)).status, 200);
    assert.equal((await call(server.url, 'POST', '/user/account-closure-request', { token })).status, 200);
    const link = new URL((await server.waitForMail(user.email, /closure/)).links[0]!);
    assert.equal((await call(server.url, 'POST', '/user/account-closure-final', { token, body: { token: link.searchParams.get('t') } })).status, 200);
    assert.equal((await v2(server, user.apiKey!)).status, 400);
  });

  test('another instance sees a replaced key, a grant and a lock within a second', async () => {
    const other = await startTestServer({ env: FAST, shareWith: server });
    try {
      const user = await server.createUser({ searchDays: 30, searchCredits: 1000 });
      const { token } = await server.login(user.email);
      const key1 = (await call(server.url, 'POST', '/user/update-key', { token })).body.api_key as string;
      server.markSecret(key1);
      other.markSecret(key1);
      assert.equal((await v2(other, key1)).status, 200, 'kept in memory there');

      await applyGrant(server.runtime.db, user.id, { searchCredits: 500 });
      const granted = await eventually(async () => {
        const reply = await v2(other, key1);
        return reply.body.balance > 1000 && reply;
      }, 1500);
      assert.equal(granted.status, 200);

      const key2 = (await call(server.url, 'POST', '/user/update-key', { token })).body.api_key as string;
      server.markSecret(key2);
      other.markSecret(key2);
      const started = Date.now();
      await eventually(async () => (await v2(other, key1)).status === 400, 1500);
      assert.ok(Date.now() - started <= 1200, 'refused within the snapshot age');

      await server.runtime.db.updateTable('users').set({ search_locked_until: new Date(Date.now() + 3_600_000) }).where('id', '=', user.id).execute();
      await eventually(async () => (await v2(other, key2)).status === 429, 1500);
    } finally {
      await other.close();
    }
  });

  test('a graceful shutdown writes what is pending', async () => {
    const other = await startTestServer({ env: { ...FAST, SEARCH_FLUSH_MS: '500' }, shareWith: server });
    const user = await server.createUser({ searchDays: 30, searchCredits: 1000, apiKey: true });
    other.markSecret(user.apiKey!);
    for (let i = 0; i < 5; i++) assert.equal((await v2(other, user.apiKey!)).status, 200);
    await other.close();
    const state = await dbState(user.id);
    assert.deepEqual([state.balance, state.searches], [995, 5]);
    assert.deepEqual(state.ledger, chain(1000, 5));
  });

  test('several instances charging in memory never take the balance below zero; the ledger shows only real debits', async () => {
    // No reserve at all: both instances charge in memory up to what they last saw.
    const env = { ...FAST, SEARCH_BATCH_RESERVE: '0' };
    const [a, b] = [await startTestServer({ env, shareWith: server }), await startTestServer({ env, shareWith: server })];
    try {
      const user = await server.createUser({ searchDays: 30, searchCredits: 30, apiKey: true });
      a.markSecret(user.apiKey!);
      b.markSecret(user.apiKey!);
      // Both instances know the account first, then a concurrent burst on each.
      assert.equal((await v2(a, user.apiKey!)).status, 200);
      assert.equal((await v2(b, user.apiKey!)).status, 200);
      const replies = await Promise.all(Array.from({ length: 60 }, (_, i) => v2(i % 2 ? a : b, user.apiKey!)));
      const ok = replies.filter((r) => r.status === 200).length;
      assert.ok(replies.every((r) => r.status === 200 || r.status === 403), replies.map((r) => r.status).join(','));
      assert.ok(ok + 2 >= 30, 'at least what the balance could pay was served');
      const state = await eventually(async () => {
        const s = await dbState(user.id);
        return s.searches === 62 && s;
      });
      assert.equal(state.balance, 0, 'never below zero');
      assert.deepEqual(state.ledger, chain(30, 30), 'one ledger row per credit really taken');
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('only counts are written, never the query', async () => {
    const user = await server.createUser({ searchDays: 30, searchCredits: 1000, apiKey: true });
    await v2(server, user.apiKey!);
    await eventually(async () => (await dbState(user.id)).searches === 1);
    const ledger = JSON.stringify(await server.runtime.db.selectFrom('credit_ledger').selectAll().where('user_id', '=', user.id).execute());
    assert.ok(!ledger.includes('meter@example.com'));
    assert.ok(!server.logs().includes('meter@example.com'));
  });
});
