/** SQL of notification channels (explicit columns, plain rows). */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema';
import type { ChannelKind } from '../common/monitoring-rules';

type Db = Kysely<Database> | Transaction<Database>;

export interface ChannelRow {
  id: string;
  kind: ChannelKind;
  value: string;
  secret: string | null;
  active: boolean;
  disabled_reason: string | null;
  created: Date;
  updated: Date;
}

const COLUMNS = ['id', 'kind', 'value', 'secret', 'active', 'disabled_reason', 'created', 'updated'] as const;

/** The user's channels, newest first. */
export async function listChannels(db: Db, userId: string): Promise<ChannelRow[]> {
  return (await db.selectFrom('notification_channels').select(COLUMNS).where('user_id', '=', userId).orderBy('id', 'desc').execute()) as ChannelRow[];
}

export async function getChannel(db: Db, userId: string, id: string, options: { lock?: boolean } = {}): Promise<ChannelRow | undefined> {
  let query = db.selectFrom('notification_channels').select(COLUMNS).where('id', '=', id).where('user_id', '=', userId);
  if (options.lock) query = query.forUpdate();
  return (await query.executeTakeFirst()) as ChannelRow | undefined;
}

export async function countOwned(db: Db, userId: string, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const row = await db
    .selectFrom('notification_channels')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('id', 'in', ids)
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertChannel(db: Db, channel: { userId: string; kind: ChannelKind; value: string; secret: string | null }): Promise<ChannelRow> {
  return (await db
    .insertInto('notification_channels')
    .values({ user_id: channel.userId, kind: channel.kind, value: channel.value, secret: channel.secret })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow()) as ChannelRow;
}

/** A new value; a non-empty one also turns a channel the system disabled back on. */
export async function updateChannel(db: Db, userId: string, id: string, changes: { value: string; secret?: string }): Promise<ChannelRow> {
  return (await db
    .updateTable('notification_channels')
    .set({
      value: changes.value,
      ...(changes.secret ? { secret: changes.secret } : {}),
      ...(changes.value ? { active: true, disabled_reason: null, fail_streak: 0 } : {}),
      updated: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .returning(COLUMNS)
    .executeTakeFirstOrThrow()) as ChannelRow;
}

export async function deleteChannels(db: Db, userId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('notification_channels').where('id', 'in', ids).where('user_id', '=', userId).execute();
}
