import type { MonitorTask } from '../api/monitoring-api';

export type TaskColumn = 'value' | 'created' | 'updated' | 'active';
export interface SortState {
  column: TaskColumn;
  direction: 'asc' | 'desc';
}

const compare: Record<TaskColumn, (a: MonitorTask, b: MonitorTask) => number> = {
  value: (a, b) => a.value.localeCompare(b.value, 'en', { sensitivity: 'base', numeric: true }),
  created: (a, b) => Date.parse(a.created) - Date.parse(b.created),
  updated: (a, b) => Date.parse(a.updated) - Date.parse(b.updated),
  active: (a, b) => Number(a.active) - Number(b.active),
};

/** A sorted copy; ties keep the id order so rows never jump between renders. */
export function sortTasks(tasks: MonitorTask[], { column, direction }: SortState): MonitorTask[] {
  const sign = direction === 'asc' ? 1 : -1;
  return [...tasks].sort((a, b) => sign * compare[column](a, b) || a.id.localeCompare(b.id, 'en', { numeric: true }));
}
