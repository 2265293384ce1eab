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
  /** Email channels: when the current value was confirmed; null while awaiting confirmation. */
  verified_at: Date | null;
  /** When the last confirmation link was mailed (resends are throttled on it). */
  confirm_sent_at: Date | null;
}

const COLUMNS = ['id', 'kind', 'value', 'secret', 'active', 'disabled_reason', 'created', 'updated', 'verified_at', 'confirm_sent_at'] as const;

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

export async function insertChannel(
  db: Db,
  channel: { userId: string; kind: ChannelKind; value: string; secret: string | null; verifiedAt: Date | null },
): Promise<ChannelRow> {
  return (await db
    .insertInto('notification_channels')
    .values({ user_id: channel.userId, kind: channel.kind, value: channel.value, secret: channel.secret, verified_at: channel.verifiedAt })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow()) as ChannelRow;
}

/**
 * A new value; a non-empty one also turns a channel the system disabled back on. `verifiedAt`
 * given: the confirmation state of a new address (any pending confirmation link is void).
 */
export async function updateChannel(
  db: Db,
  userId: string,
  id: string,
  changes: { value: string; secret?: string; verifiedAt?: Date | null },
): Promise<ChannelRow> {
  return (await db
    .updateTable('notification_channels')
    .set({
      value: changes.value,
      ...(changes.secret ? { secret: changes.secret } : {}),
      ...(changes.verifiedAt !== undefined
        ? { verified_at: changes.verifiedAt, confirm_token_hash: null, confirm_expires_at: null, confirm_sent_at: null }
        : {}),
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

/** The account's sign-in address and whether it is verified (an email channel there needs no confirmation). */
export async function readAccountEmail(db: Db, userId: string): Promise<{ email: string; verified: boolean } | undefined> {
  const row = await db.selectFrom('users').select(['email', 'email_verified_at']).where('id', '=', userId).executeTakeFirst();
  return row ? { email: row.email, verified: row.email_verified_at !== null } : undefined;
}

/** A new confirmation link for an email channel awaiting one (replaces the previous link). False when it needs none. */
export async function storeConfirmation(db: Db, channelId: string, tokenHash: string, expiresAt: Date): Promise<boolean> {
  const result = await db
    .updateTable('notification_channels')
    .set({ confirm_token_hash: tokenHash, confirm_expires_at: expiresAt, confirm_sent_at: sql<Date>`now()` })
    .where('id', '=', channelId)
    .where('kind', '=', 'email')
    .where('value', '<>', '')
    .where('verified_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The email channel a live (unexpired, unused) confirmation link is for. */
export async function findConfirmation(db: Db, tokenHash: string): Promise<{ id: string; value: string } | undefined> {
  return db
    .selectFrom('notification_channels')
    .select(['id', 'value'])
    .where('confirm_token_hash', '=', tokenHash)
    .where('confirm_expires_at', '>', sql<Date>`now()`)
    .where('kind', '=', 'email')
    .where('value', '<>', '')
    .executeTakeFirst();
}

/** Confirms the channel of a live link and voids the link (single use). */
export async function consumeConfirmation(db: Db, tokenHash: string): Promise<{ id: string; value: string } | undefined> {
  return db
    .updateTable('notification_channels')
    .set({ verified_at: sql<Date>`now()`, confirm_token_hash: null, confirm_expires_at: null, updated: sql<Date>`now()` })
    .where('confirm_token_hash', '=', tokenHash)
    .where('confirm_expires_at', '>', sql<Date>`now()`)
    .where('kind', '=', 'email')
    .where('value', '<>', '')
    .returning(['id', 'value'])
    .executeTakeFirst();
}
