/** Deleting tasks: all of the ids must be the caller's, else 404 and nothing is deleted. */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import * as repo from './monitoring-repository';
import { DOMAIN_NOT_FOUND, TASK_NOT_FOUND, taskId } from './task-input';

/** Deletes the user's tasks (all of `ids` must be theirs); a slot's task empties its slot, which stays. */
export async function removeTasks(db: Kysely<Database>, userId: string, rawIds: unknown[], options: { domainOnly?: boolean } = {}): Promise<void> {
  const ids = rawIds.map(taskId);
  if (ids.some((id) => id === undefined)) throw Errors.notFound(TASK_NOT_FOUND);
  const unique = [...new Set(ids as string[])];
  await db.transaction().execute(async (trx) => {
    const rows = await repo.getTasks(trx, userId, unique);
    if (rows.length !== unique.length) throw Errors.notFound(TASK_NOT_FOUND);
    if (options.domainOnly && rows.some((row) => row.kind !== 'domain')) throw Errors.notFound(DOMAIN_NOT_FOUND);
    const slots = rows.map((row) => row.subscription_domain_id).filter((id): id is string => id !== null);
    await repo.setSlotDomain(trx, userId, slots, null);
    await repo.deleteTasks(trx, userId, unique);
  });
}
