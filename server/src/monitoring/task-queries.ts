/** Reading the user's tasks: a page of them, their counts, one by id (another user's: 404). */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import { STANDARD_TASK_KINDS, TASKS_PAGE_SIZE, type TaskKind } from '../common/monitoring-rules';
import * as repo from './monitoring-repository';
import type { TaskRow } from './monitoring-repository';
import { TASK_NOT_FOUND, taskId } from './task-input';

export interface ListTasksOptions {
  activeOnly?: boolean;
  page?: number;
  pageSize?: number;
  kinds?: readonly TaskKind[];
}

/** The user's tasks, oldest first, `pageSize` a page; `kinds` narrows. */
export async function listTasks(db: Kysely<Database>, userId: string, options: ListTasksOptions = {}) {
  const pageSize = options.pageSize ?? TASKS_PAGE_SIZE;
  const page = Math.max(1, Math.trunc(options.page ?? 1));
  const { rows, total } = await repo.listTasks(db, userId, {
    activeOnly: options.activeOnly,
    kinds: options.kinds,
    offset: (page - 1) * pageSize,
    limit: pageSize,
  });
  return { rows, total, page, next_page: page * pageSize < total ? page + 1 : null };
}

export function countStandardTasks(db: Kysely<Database>, userId: string) {
  return repo.countTasks(db, userId, STANDARD_TASK_KINDS);
}

export async function getTask(db: Kysely<Database>, userId: string, id: unknown): Promise<TaskRow> {
  const key = taskId(id);
  const row = key ? await repo.getTask(db, userId, key) : undefined;
  if (!row) throw Errors.notFound(TASK_NOT_FOUND);
  return row;
}
