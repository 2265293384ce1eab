/**
 * Monitoring tasks and domain slots (docs/monitoring.md): every
 * validation and message of the shared monitoring rules, the tier limits checked inside the write's
 * transaction after the user's row is locked, duplicates refused, and another user's id
 * answered 404. Used by the dashboard routes, /v2/monitoring and the Monitor API V1.
 * One module per use case (monitoring-info, task-queries, task-add, task-update,
 * task-delete, domain-tasks); this service gives them the database.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { MonitorTask } from '../common/monitoring-wire';
import type { TaskRow } from './monitoring-repository';
import { monitoringInfo } from './monitoring-info';
import { countStandardTasks, getTask, listTasks, type ListTasksOptions } from './task-queries';
import { addTask } from './task-add';
import { updateTask, type TaskChanges } from './task-update';
import { removeTasks } from './task-delete';
import { clearDomain, listDomains, setDomain, updateDomain } from './domain-tasks';

// Delivery holds back alerts to an email channel until it is confirmed, and mails the link.
export { createChannelConfirmations, type ChannelConfirmations } from './channels-confirmation';
export { DOMAIN_NOT_FOUND, DUPLICATE_TASK_MESSAGE, TASK_NOT_FOUND, UNKNOWN_TASK_KIND_MESSAGE } from './task-input';

/** A task as every dashboard call answers it. */
export function taskView(row: TaskRow): MonitorTask {
  return { id: String(row.id), key: row.kind, value: row.value, created: row.created.toISOString(), updated: row.updated.toISOString(), active: row.active };
}

export function createMonitoringService(deps: { db: Kysely<Database> }) {
  const { db } = deps;
  return {
    /** GET /monitoring/info. */
    info: (userId: string) => monitoringInfo(db, userId),
    /** The user's tasks, oldest first, `pageSize` a page; `kinds` narrows. */
    listTasks: (userId: string, options: ListTasksOptions = {}) => listTasks(db, userId, options),
    countStandardTasks: (userId: string) => countStandardTasks(db, userId),
    getTask: (userId: string, id: unknown) => getTask(db, userId, id),
    addTask: (userId: string, key: unknown, rawValue: string) => addTask(db, userId, key, rawValue),
    updateTask: (userId: string, id: unknown, changes: TaskChanges) => updateTask(db, userId, id, changes),
    /** Deletes tasks; every id must be the caller's (else 404 and nothing is deleted). */
    deleteTasks: (userId: string, ids: unknown[]) => removeTasks(db, userId, ids),
    /** Deletes domain tasks; a slot's task empties its slot (the slot stays, to be set again). */
    clearDomains: (userId: string, ids: unknown[]) => removeTasks(db, userId, ids, { domainOnly: true }),
    setDomain: (userId: string, id: unknown, rawDomain: string) => setDomain(db, userId, id, rawDomain),
    listDomains: (userId: string) => listDomains(db, userId),
    updateDomain: (userId: string, id: unknown, domain: string) => updateDomain(db, userId, id, domain),
    clearDomain: (userId: string, id: unknown) => clearDomain(db, userId, id),
  };
}

export type MonitoringService = ReturnType<typeof createMonitoringService>;
