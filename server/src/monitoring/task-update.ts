/** Changing a task (docs/monitoring.md "Task"): its value, its kind, or pausing and resuming it. */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import { MONITORING_MESSAGES, matchValue } from '../common/monitoring-rules';
import * as repo from './monitoring-repository';
import type { TaskRow } from './monitoring-repository';
import { TASK_NOT_FOUND, checkValue, parseKind, storedValue, taskId } from './task-input';
import { checkDirectDomainAllowed, checkNotDuplicate, checkRoom, locked } from './task-writes';

export interface TaskChanges {
  key?: unknown;
  value?: string;
  active?: boolean;
}

/**
 * Changes a task's value, kind or active flag. A slot's task stays a domain task and its
 * slot follows its value; moving a task to the other class (standard, domain) needs room there.
 */
export async function updateTask(db: Kysely<Database>, userId: string, id: unknown, changes: TaskChanges): Promise<TaskRow> {
  const key = taskId(id);
  if (!key) throw Errors.notFound(TASK_NOT_FOUND);
  return locked(db, userId, async (trx, tier) => {
    const row = await repo.getTask(trx, userId, key, { lock: true });
    if (!row) throw Errors.notFound(TASK_NOT_FOUND);
    const kind = changes.key === undefined ? row.kind : parseKind(changes.key);
    if (row.subscription_domain_id && kind !== 'domain') throw Errors.badRequest(MONITORING_MESSAGES.domain);
    const rawValue = changes.value ?? row.value;
    checkValue(kind, rawValue);
    const value = storedValue(kind, rawValue);
    if (kind !== row.kind || matchValue(kind, value) !== row.match_value) await checkNotDuplicate(trx, userId, kind, value, row.id);
    if ((kind === 'domain') !== (row.kind === 'domain')) {
      if (kind === 'domain') checkDirectDomainAllowed(tier);
      await checkRoom(trx, userId, tier, kind);
    }
    const updated = await repo.updateTask(trx, userId, row.id, { kind, value, matchValue: matchValue(kind, value), active: changes.active });
    if (row.subscription_domain_id && value !== row.value) await repo.setSlotDomain(trx, userId, [row.subscription_domain_id], value);
    return updated;
  });
}
