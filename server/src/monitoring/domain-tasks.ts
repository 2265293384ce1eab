/**
 * The user's monitored domains (docs/monitoring.md "Domain tasks"): each current slot of a
 * domain subscription (its id a UUID, its domain set or not) and each direct domain task of
 * an enterprise or elevated account (its id a number). Set, listed, updated and cleared by
 * the dashboard, /v2 and the Monitor API V1.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import { MONITORING_MESSAGES, normalizeDomain } from '../common/monitoring-rules';
import * as repo from './monitoring-repository';
import type { TaskRow } from './monitoring-repository';
import { DOMAIN_NOT_FOUND, slotId, taskId } from './task-input';
import { addDomainTask, locked, setSlotDomain } from './task-writes';
import { removeTasks } from './task-delete';
import { updateTask } from './task-update';

export interface MonitoredDomain {
  id: string;
  domain: string | null;
  updated: Date;
  active: boolean;
}

const noId = (id: unknown) => id === undefined || id === null || id === '';

/**
 * POST /monitoring/set-domain: with a slot id, that slot's domain (its task created or
 * updated); without, the first current slot with no domain, else (enterprise, elevated)
 * a direct domain task. 'invalid domain value' for a bad domain; a slot that is not the
 * caller's current slot: 404.
 */
export async function setDomain(db: Kysely<Database>, userId: string, id: unknown, rawDomain: string): Promise<{ value: string; task: TaskRow }> {
  const domain = normalizeDomain(rawDomain);
  if (!domain || rawDomain.trim().length > 256) throw Errors.badRequest(MONITORING_MESSAGES.domainValue);
  const slot = noId(id) ? undefined : slotId(id);
  if (!noId(id) && !slot) throw Errors.notFound(DOMAIN_NOT_FOUND);
  const task = await locked(db, userId, async (trx, tier) => {
    if (!slot) return addDomainTask(trx, userId, tier, domain);
    if (!(await repo.getCurrentSlot(trx, userId, slot))) throw Errors.notFound(DOMAIN_NOT_FOUND);
    return setSlotDomain(trx, userId, tier, slot, domain);
  });
  return { value: domain, task };
}

/** The user's domains for /v2 and V1: each current slot (domain null until set), then each direct domain task. */
export async function listDomains(db: Kysely<Database>, userId: string): Promise<MonitoredDomain[]> {
  const slots = await repo.listCurrentSlots(db, userId);
  const { rows } = await repo.listTasks(db, userId, { kinds: ['domain'], offset: 0, limit: 100_000 });
  const slotTasks = new Map(rows.filter((r) => r.subscription_domain_id).map((r) => [r.subscription_domain_id!, r]));
  return [
    ...slots.map((s) => {
      const task = slotTasks.get(s.id);
      return { id: s.id, domain: task?.value ?? s.domain, updated: task?.updated ?? s.updated_at, active: task?.active ?? false };
    }),
    ...rows.filter((r) => !r.subscription_domain_id).map((r) => ({ id: String(r.id), domain: r.value, updated: r.updated, active: r.active })),
  ];
}

/** /v2 update-domain: a slot id sets the slot, a task id updates that domain task, no id adds. */
export async function updateDomain(db: Kysely<Database>, userId: string, id: unknown, domain: string): Promise<{ value: string }> {
  if (noId(id) || slotId(id)) return setDomain(db, userId, id, domain);
  const key = taskId(id);
  const row = key ? await repo.getTask(db, userId, key) : undefined;
  if (!row || row.kind !== 'domain') throw Errors.notFound(DOMAIN_NOT_FOUND);
  if (!normalizeDomain(domain)) throw Errors.badRequest(MONITORING_MESSAGES.domainValue);
  const updated = await updateTask(db, userId, key, { value: domain });
  return { value: updated.value };
}

/** /v2 clear-domain: a slot id empties the slot (and deletes its task); a task id deletes that domain task. */
export async function clearDomain(db: Kysely<Database>, userId: string, id: unknown): Promise<void> {
  const slot = slotId(id);
  if (!slot) return removeTasks(db, userId, [id], { domainOnly: true });
  await db.transaction().execute(async (trx) => {
    if (!(await repo.getCurrentSlot(trx, userId, slot))) throw Errors.notFound(DOMAIN_NOT_FOUND);
    const task = await repo.getSlotTask(trx, slot);
    if (task) await repo.deleteTasks(trx, userId, [task.id]);
    await repo.setSlotDomain(trx, userId, [slot], null);
  });
}
