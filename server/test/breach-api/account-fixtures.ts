/**
 * The wells and accounts the Breach API v3 keyed-call tests share: four wells about
 * acme-v3.test (one sensitive, one a stealer log), an owner with a search subscription who
 * verified acme-v3.test and empty-v3.test, a subscriber who verified nothing, and an
 * account with a key but no subscription.
 */
import { sql } from 'kysely';
import type { TestServer } from '../support/harness';
import { markDomainVerified } from '../../src/monitoring/domain-verification-service';

type KeyedUser = { id: string; email: string; apiKey: string };
export type V3Seed = { owner: KeyedUser; stranger: KeyedUser; unsubscribed: KeyedUser };

/** Whether this branch's catalogue has the stealer-log flag (then the stealer well carries it). */
export async function stealerFlagged(server: TestServer): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from information_schema.columns
    where table_name = 'data_wells' and column_name = 'is_stealer_log'`.execute(server.runtime.db);
  return rows[0]!.n > 0;
}

async function keyedUser(server: TestServer, grant: { searchDays?: number }): Promise<KeyedUser> {
  const user = await server.createUser({ ...grant, apiKey: true });
  return { id: user.id, email: user.email, apiKey: user.apiKey! };
}

export async function seedV3(server: TestServer): Promise<V3Seed> {
  await server.ingest('V3 Forum', [
    { email: 'alice@acme-v3.test', password: 'forum-pw-1' },
    { email: 'Bob@ACME-v3.test', username: 'bobby_v3' },
    { email: 'carol@other-v3.test', username: 'carol_v3' },
  ]);
  await server.ingest('V3 Shop', [{ email: 'alice@acme-v3.test', username: 'alice_v3' }]);
  await server.ingest('V3 Secret', [{ email: 'alice@acme-v3.test' }, { email: 'dave@acme-v3.test' }]);
  await server.ingest('V3 Stealer', [
    { url: 'https://login.acme-v3.test/signin', email: 'alice@acme-v3.test', password: 'stolen-1' },
    { url: 'https://shop.example.org:8443/login', email: 'erin@acme-v3.test', password: 'stolen-2' },
    { url: 'www.acme-v3.test/account', email: 'frank@gmail-v3.test', password: 'stolen-3' },
  ]);
  const db = server.runtime.db;
  await db.updateTable('data_wells').set({ is_sensitive: true }).where('name', '=', 'V3 Secret').execute();
  if (await stealerFlagged(server)) await sql`update data_wells set is_stealer_log = true where name = 'V3 Stealer'`.execute(db);
  const owner = await keyedUser(server, { searchDays: 30 });
  await markDomainVerified(db, owner.id, 'acme-v3.test');
  await markDomainVerified(db, owner.id, 'empty-v3.test');
  return { owner, stranger: await keyedUser(server, { searchDays: 30 }), unsubscribed: await keyedUser(server, {}) };
}
