/** Adding a task (docs/monitoring.md "Task"): its value checked, then room and duplicates inside the user's lock. */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { matchValue } from '../common/monitoring-rules';
import * as repo from './monitoring-repository';
import type { TaskRow } from './monitoring-repository';
import { checkValue, parseKind, storedValue } from './task-input';
import { addDomainTask, checkNotDuplicate, checkRoom, locked } from './task-writes';

/**
 * Adds a task. A domain task takes the first current slot with no domain, as set-domain
 * does (the Domain tab of Monitor Tasks uses a paid slot); with none free it is a direct
 * one: enterprise and elevated accounts only; counted with the slots' tasks.
 */
export async function addTask(db: Kysely<Database>, userId: string, key: unknown, rawValue: string): Promise<TaskRow> {
  const kind = parseKind(key);
  checkValue(kind, rawValue);
  const value = storedValue(kind, rawValue);
  return locked(db, userId, async (trx, tier) => {
    if (kind === 'domain') return addDomainTask(trx, userId, tier, value);
    await checkNotDuplicate(trx, userId, kind, value);
    await checkRoom(trx, userId, tier, kind);
    return repo.insertTask(trx, { userId, kind, value, matchValue: matchValue(kind, value) });
  });
}
