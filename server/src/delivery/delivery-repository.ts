/** SQL of alert delivery: deliveries, their attempts, the channel's state, the failure notice. */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { ChannelKind } from '../common/monitoring-rules';

type Db = Kysely<Database>;

export interface DeliveryToSend {
  id: string;
  userId: string;
  userEmail: string;
  /** The owner's account is suspended by an operator: nothing is sent. */
  userSuspended: boolean;
  reportId: string;
  kind: ChannelKind;
  target: string;
  status: 'pending' | 'sent' | 'dead';
  channel: { id: string; value: string; secret: string | null; active: boolean; verifiedAt: Date | null; confirmSentAt: Date | null } | null;
  report: { wellName: string; results: number };
}

export async function loadDelivery(db: Db, deliveryId: string): Promise<DeliveryToSend | null> {
  const row = await db
    .selectFrom('deliveries as d')
    .innerJoin('users as u', 'u.id', 'd.user_id')
    .innerJoin('monitor_reports as r', 'r.id', 'd.report_id')
    .leftJoin('notification_channels as c', 'c.id', 'd.channel_id')
    .select([
      'd.id',
      'd.user_id',
      'u.email',
      'u.suspended_at',
      'd.report_id',
      'd.kind',
      'd.target',
      'd.status',
      'c.id as channel_id',
      'c.value as channel_value',
      'c.secret as channel_secret',
      'c.active as channel_active',
      'c.verified_at as channel_verified_at',
      'c.confirm_sent_at as channel_confirm_sent_at',
      'r.well_name',
      'r.results',
    ])
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    userId: row.user_id,
    userEmail: row.email,
    userSuspended: row.suspended_at !== null,
    reportId: row.report_id,
    kind: row.kind,
    target: row.target,
    status: row.status,
    channel:
      row.channel_id === null
        ? null
        : {
            id: String(row.channel_id),
            value: row.channel_value ?? '',
            secret: row.channel_secret,
            active: row.channel_active ?? false,
            verifiedAt: row.channel_verified_at,
            confirmSentAt: row.channel_confirm_sent_at,
          },
    report: { wellName: row.well_name, results: row.results },
  };
}

/** One attempt in the visible log; an attempt run again (a worker stopped mid-job) replaces its row. */
export async function recordAttempt(db: Db, deliveryId: string, attempt: { n: number; httpStatus: number | null; ms: number | null; error: string | null }): Promise<void> {
  const values = { delivery_id: deliveryId, n: attempt.n, http_status: attempt.httpStatus, ms: attempt.ms, error: attempt.error?.slice(0, 500) ?? null };
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('delivery_attempts')
      .values(values)
      .onConflict((oc) => oc.columns(['delivery_id', 'n']).doUpdateSet({ at: sql`now()`, http_status: values.http_status, ms: values.ms, error: values.error }))
      .execute();
    await trx
      .updateTable('deliveries')
      .set({ attempts: sql<number>`greatest(attempts, ${attempt.n})`, last_error: values.error })
      .where('id', '=', deliveryId)
      .execute();
  });
}

/** Sent: the delivery is done and the channel's run of dead deliveries ends. */
export async function markSent(db: Db, deliveryId: string, channelId: string | null): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('deliveries').set({ status: 'sent', sent_at: new Date(), last_error: null }).where('id', '=', deliveryId).where('status', '=', 'pending').execute();
    if (channelId) await trx.updateTable('notification_channels').set({ fail_streak: 0 }).where('id', '=', channelId).execute();
  });
}

/**
 * Dead: the delivery gives up, the channel's fail_streak grows, and the user's inbox gets a
 * `delivery-failed` notice (once per delivery). True when this call made it dead (so the
 * caller mails the owner once).
 */
export async function markDead(
  db: Db,
  delivery: { id: string; userId: string; channelId: string | null; reportId: string },
  reason: string,
  notice: string | null,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('deliveries')
      .set({ status: 'dead', last_error: reason.slice(0, 500) })
      .where('id', '=', delivery.id)
      .where('status', '=', 'pending')
      .returning('id')
      .executeTakeFirst();
    if (!updated) return false;
    if (delivery.channelId) {
      await trx
        .updateTable('notification_channels')
        .set((eb) => ({ fail_streak: eb('fail_streak', '+', 1) }))
        .where('id', '=', delivery.channelId)
        .execute();
    }
    if (notice) {
      await trx
        .insertInto('notifications')
        .values({
          user_id: delivery.userId,
          type: 'delivery-failed',
          data: notice,
          link: `/monitoring/reports/${delivery.reportId}`,
          dedupe_key: `delivery-failed-${delivery.id}`,
        })
        .onConflict((oc) => oc.column('dedupe_key').doNothing())
        .execute();
    }
    return true;
  });
}

/** The system turns a channel off (a 410 from a webhook, an unsubscribe); `kind` guards the id. */
export async function disableChannel(db: Db, channelId: string, kind: ChannelKind, reason: string): Promise<boolean> {
  const result = await db
    .updateTable('notification_channels')
    .set({ active: false, disabled_reason: reason, updated: new Date() })
    .where('id', '=', channelId)
    .where('kind', '=', kind)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function readChannel(db: Db, channelId: string): Promise<{ id: string; kind: ChannelKind; value: string; active: boolean } | undefined> {
  return db.selectFrom('notification_channels').select(['id', 'kind', 'value', 'active']).where('id', '=', channelId).executeTakeFirst();
}
