import { sql, type Kysely } from 'kysely';

// Frozen: never edit after it lands; add a new migration instead.
// Monitoring (design in docs/monitoring.md): watched values, the
// channels alerts go to, the segments each ingest publishes (matched once), the reports a
// match writes, the deliveries of alerts with every attempt, and the SMS outbox.
export async function up(db: Kysely<any>): Promise<void> {
  // A watched value. `match_value` is the normalised form (common/monitoring-rules.ts
  // matchValue) the engine looks up and that is unique per user and kind. A domain task
  // set through a paid domain slot points at its slot and goes with it.
  await db.schema
    .createTable('monitor_tasks')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('username', 'email', 'phone', 'name', 'domain')`))
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('match_value', 'text', (c) => c.notNull())
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('subscription_domain_id', 'uuid', (c) => c.unique().references('subscription_domains.id').onDelete('cascade'))
    .addColumn('created', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('monitor_tasks_user_kind_value', ['user_id', 'kind', 'match_value'])
    .execute();
  // Matching reads every active task of a kind.
  await sql`create index monitor_tasks_active_kind on monitor_tasks (kind, match_value) where active`.execute(db);

  // Where alerts go. `kind` phone is the dashboard's SMS. A webhook has its signing secret
  // (Standard Webhooks `whsec_…`), shown to its owner once. An empty `value` is a disabled
  // channel; `disabled_reason` says why the system turned one off.
  await db.schema
    .createTable('notification_channels')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('email', 'phone', 'webhook')`))
    .addColumn('value', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('secret', 'text')
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('disabled_reason', 'text')
    .addColumn('fail_streak', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('notification_channels_user_idx').on('notification_channels').columns(['user_id', 'kind']).execute();

  // One row per ingested segment: the ingest CLI records it (and NOTIFYs), the server
  // enqueues one match job per row and marks it matched. Segments published before
  // monitoring existed are a baseline: never matched, so old data raises no alert.
  await db.schema
    .createTable('monitor_segments')
    .addColumn('segment_id', 'text', (c) => c.primaryKey())
    .addColumn('well_name', 'text', (c) => c.notNull())
    .addColumn('records', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('published_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending').check(sql`status in ('pending', 'matched', 'baseline')`))
    .addColumn('matched_at', 'timestamptz')
    .addColumn('tasks_matched', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`create index monitor_segments_pending on monitor_segments (published_at) where status = 'pending'`.execute(db);
  await sql`
    insert into monitor_segments (segment_id, well_name, records, status, matched_at)
    select s.segment_id, w.name, 0, 'baseline', now()
      from data_wells w cross join lateral unnest(w.segment_ids) as s(segment_id)
    on conflict do nothing`.execute(db);

  // A report: what one segment held for one user. Unique per user and segment, so a match
  // job run twice writes one report.
  await db.schema
    .createTable('monitor_reports')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('segment_id', 'text', (c) => c.notNull())
    .addColumn('well_name', 'text', (c) => c.notNull())
    .addColumn('results', 'integer', (c) => c.notNull())
    .addColumn('created', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('monitor_reports_user_segment', ['user_id', 'segment_id'])
    .execute();
  await db.schema.createIndex('monitor_reports_user_created').on('monitor_reports').columns(['user_id', 'created']).execute();

  // Per task of a report: the task as it was (kind, value), its whole count of matching
  // records, and the ids of the first REPORT_RECORDS_PER_TASK of them. Entries are read
  // from the engine by id when the report is shown, so a removed entry never appears.
  await db.schema
    .createTable('monitor_report_tasks')
    .addColumn('report_id', 'uuid', (c) => c.notNull().references('monitor_reports.id').onDelete('cascade'))
    .addColumn('task_id', 'bigint', (c) => c.references('monitor_tasks.id').onDelete('set null'))
    .addColumn('task_kind', 'text', (c) => c.notNull())
    .addColumn('task_value', 'text', (c) => c.notNull())
    .addColumn('results_count', 'integer', (c) => c.notNull())
    .addColumn('record_ids', sql`text[]`, (c) => c.notNull())
    .addPrimaryKeyConstraint('monitor_report_tasks_pk', ['report_id', 'task_kind', 'task_value'])
    .execute();

  // Notifications: a link (a report) and a key that makes a notice once-only (the daily
  // expiry and low-credit notices: kind + user + day).
  await db.schema.alterTable('notifications').addColumn('link', 'text').execute();
  await db.schema.alterTable('notifications').addColumn('dedupe_key', 'text', (c) => c.unique()).execute();
  await db.schema.createIndex('notifications_user_created').on('notifications').columns(['user_id', 'created']).execute();

  // One delivery of one report to one channel. Its id is the webhook-id, constant across
  // retries; unique per report and channel so a fan-out run twice delivers once.
  await db.schema
    .createTable('deliveries')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('report_id', 'uuid', (c) => c.notNull().references('monitor_reports.id').onDelete('cascade'))
    .addColumn('channel_id', 'bigint', (c) => c.references('notification_channels.id').onDelete('set null'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending').check(sql`status in ('pending', 'sent', 'dead')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('created', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('sent_at', 'timestamptz')
    .addUniqueConstraint('deliveries_report_channel', ['report_id', 'channel_id'])
    .execute();
  await sql`create index deliveries_pending on deliveries (created) where status = 'pending'`.execute(db);
  await db.schema
    .createTable('delivery_attempts')
    .addColumn('delivery_id', 'uuid', (c) => c.notNull().references('deliveries.id').onDelete('cascade'))
    .addColumn('n', 'integer', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('http_status', 'integer')
    .addColumn('ms', 'integer')
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('delivery_attempts_pk', ['delivery_id', 'n'])
    .execute();

  // SMS sent without a provider configured land here, as mail lands in the outbox.
  await db.schema
    .createTable('sms_outbox')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_id', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('created', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // Extra mail headers (List-Unsubscribe on alerts).
  await db.schema.alterTable('outbox').addColumn('headers', 'jsonb').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('outbox').dropColumn('headers').execute();
  for (const table of ['sms_outbox', 'delivery_attempts', 'deliveries', 'monitor_report_tasks', 'monitor_reports', 'monitor_segments', 'notification_channels', 'monitor_tasks']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
  await db.schema.dropIndex('notifications_user_created').ifExists().execute();
  await db.schema.alterTable('notifications').dropColumn('dedupe_key').execute();
  await db.schema.alterTable('notifications').dropColumn('link').execute();
}
