/** SQL of monitoring tasks and domain slots (explicit columns, plain rows). */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema';
import type { TaskKind } from '../common/monitoring-rules';

type Db = Kysely<Database> | Transaction<Database>;

export interface TaskRow {
  id: string;
  kind: TaskKind;
  value: string;
  match_value: string;
  active: boolean;
  subscription_domain_id: string | null;
  created: Date;
  updated: Date;
}

const TASK_COLUMNS = ['id', 'kind', 'value', 'match_value', 'active', 'subscription_domain_id', 'created', 'updated'] as const;

/** A page of the user's tasks, oldest first, with the total. `kinds` narrows (e.g. the standard kinds). */
export async function listTasks(
  db: Db,
  userId: string,
  options: { activeOnly?: boolean; kinds?: readonly TaskKind[]; offset: number; limit: number },
): Promise<{ rows: TaskRow[]; total: number }> {
  let base = db.selectFrom('monitor_tasks').where('user_id', '=', userId);
  if (options.activeOnly) base = base.where('active', '=', true);
  if (options.kinds) base = base.where('kind', 'in', [...options.kinds]);
  const [rows, count] = await Promise.all([
    base.select(TASK_COLUMNS).orderBy('id').offset(options.offset).limit(options.limit).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows as TaskRow[], total: Number(count.n) };
}

/** Active and inactive counts of the user's tasks of these kinds. */
export async function countTasks(db: Db, userId: string, kinds: readonly TaskKind[]): Promise<{ active: number; inactive: number }> {
  const row = await db
    .selectFrom('monitor_tasks')
    .select([sql<string>`count(*) filter (where active)`.as('active'), sql<string>`count(*) filter (where not active)`.as('inactive')])
    .where('user_id', '=', userId)
    .where('kind', 'in', [...kinds])
    .executeTakeFirstOrThrow();
  return { active: Number(row.active), inactive: Number(row.inactive) };
}

/** One of the user's tasks (undefined when the id is not theirs); `lock` takes it FOR UPDATE. */
export async function getTask(db: Db, userId: string, id: string, options: { lock?: boolean } = {}): Promise<TaskRow | undefined> {
  let query = db.selectFrom('monitor_tasks').select(TASK_COLUMNS).where('id', '=', id).where('user_id', '=', userId);
  if (options.lock) query = query.forUpdate();
  return (await query.executeTakeFirst()) as TaskRow | undefined;
}

/** Those of `ids` that are the user's tasks. */
export async function getTasks(db: Db, userId: string, ids: string[]): Promise<TaskRow[]> {
  if (ids.length === 0) return [];
  return (await db.selectFrom('monitor_tasks').select(TASK_COLUMNS).where('id', 'in', ids).where('user_id', '=', userId).execute()) as TaskRow[];
}

/** The user's task of this kind and normalised value, other than `exceptId`. */
export async function findDuplicate(db: Db, userId: string, kind: TaskKind, matchValue: string, exceptId?: string): Promise<boolean> {
  let query = db
    .selectFrom('monitor_tasks')
    .select('id')
    .where('user_id', '=', userId)
    .where('kind', '=', kind)
    .where('match_value', '=', matchValue);
  if (exceptId) query = query.where('id', '<>', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

export async function insertTask(
  db: Db,
  task: { userId: string; kind: TaskKind; value: string; matchValue: string; subscriptionDomainId?: string | null },
): Promise<TaskRow> {
  return (await db
    .insertInto('monitor_tasks')
    .values({
      user_id: task.userId,
      kind: task.kind,
      value: task.value,
      match_value: task.matchValue,
      subscription_domain_id: task.subscriptionDomainId ?? null,
    })
    .returning(TASK_COLUMNS)
    .executeTakeFirstOrThrow()) as TaskRow;
}

export async function updateTask(
  db: Db,
  userId: string,
  id: string,
  changes: { kind?: TaskKind; value?: string; matchValue?: string; active?: boolean },
): Promise<TaskRow> {
  return (await db
    .updateTable('monitor_tasks')
    .set({
      ...(changes.kind !== undefined ? { kind: changes.kind } : {}),
      ...(changes.value !== undefined ? { value: changes.value } : {}),
      ...(changes.matchValue !== undefined ? { match_value: changes.matchValue } : {}),
      ...(changes.active !== undefined ? { active: changes.active } : {}),
      updated: sql<Date>`now()`,
    })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .returning(TASK_COLUMNS)
    .executeTakeFirstOrThrow()) as TaskRow;
}

export async function deleteTasks(db: Db, userId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('monitor_tasks').where('id', 'in', ids).where('user_id', '=', userId).execute();
}

export interface SlotRow {
  id: string;
  domain: string | null;
  updated_at: Date;
  task_id: string | null;
}

/** The user's current domain slots (their subscription's period not ended), oldest purchase first, with each slot's task. */
export async function listCurrentSlots(db: Db, userId: string): Promise<SlotRow[]> {
  return db
    .selectFrom('subscription_domains as sd')
    .innerJoin('subscriptions as s', 's.id', 'sd.subscription_id')
    .leftJoin('monitor_tasks as t', 't.subscription_domain_id', 'sd.id')
    .select(['sd.id', 'sd.domain', 'sd.updated_at', 't.id as task_id'])
    .where('sd.user_id', '=', userId)
    .where('s.user_id', '=', userId)
    .where('s.plan', '=', 'domain')
    .where('s.period_end', '>', sql<Date>`now()`)
    .orderBy('s.created_at')
    .orderBy('sd.id')
    .execute();
}

/** One of the user's current slots, locked; undefined when it is not theirs or has lapsed. */
export async function getCurrentSlot(db: Db, userId: string, slotId: string): Promise<{ id: string; domain: string | null } | undefined> {
  return db
    .selectFrom('subscription_domains as sd')
    .innerJoin('subscriptions as s', 's.id', 'sd.subscription_id')
    .select(['sd.id', 'sd.domain'])
    .where('sd.id', '=', slotId)
    .where('sd.user_id', '=', userId)
    .where('s.user_id', '=', userId)
    .where('s.plan', '=', 'domain')
    .where('s.period_end', '>', sql<Date>`now()`)
    .forUpdate()
    .executeTakeFirst();
}

export async function setSlotDomain(db: Db, userId: string, slotIds: string[], domain: string | null): Promise<void> {
  if (slotIds.length === 0) return;
  await db
    .updateTable('subscription_domains')
    .set({ domain, updated_at: sql<Date>`now()` })
    .where('id', 'in', slotIds)
    .where('user_id', '=', userId)
    .execute();
}

/** The slot's domain task, if it has one. */
export async function getSlotTask(db: Db, slotId: string): Promise<TaskRow | undefined> {
  return (await db.selectFrom('monitor_tasks').select(TASK_COLUMNS).where('subscription_domain_id', '=', slotId).forUpdate().executeTakeFirst()) as
    | TaskRow
    | undefined;
}
