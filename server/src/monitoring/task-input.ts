/**
 * How the task calls read their input (docs/monitoring.md): ids, slot ids, kinds and
 * values, each refused with its own message. Shared by every task use case and by the
 * channels (whose ids are bigints too).
 */
import { Errors } from '../infra/errors';
import { isTaskKind, normalizeDomain, taskValueProblem, type TaskKind } from '../common/monitoring-rules';

export const DUPLICATE_TASK_MESSAGE = 'You are already monitoring this value';
export const UNKNOWN_TASK_KIND_MESSAGE = 'key must be one of username, email, phone, name, domain';
export const TASK_NOT_FOUND = 'Task not found';
export const DOMAIN_NOT_FOUND = 'Domain not found';

/** A bigint id as text, or undefined when it cannot be one (answered 404, never a database error). */
export function taskId(id: unknown): string | undefined {
  const text = typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : typeof id === 'string' ? id.trim() : '';
  return /^[1-9]\d{0,17}$/.test(text) ? text : undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function slotId(id: unknown): string | undefined {
  return typeof id === 'string' && UUID.test(id.trim()) ? id.trim().toLowerCase() : undefined;
}

/** The value as stored: trimmed; a domain in its ASCII lower-case form. */
export function storedValue(kind: TaskKind, value: string): string {
  const v = value.trim();
  return kind === 'domain' ? (normalizeDomain(v) ?? v) : v;
}

export function checkValue(kind: TaskKind, value: string): void {
  const problem = taskValueProblem(kind, value);
  if (problem) throw Errors.badRequest(problem);
}

export function parseKind(key: unknown): TaskKind {
  if (!isTaskKind(key)) throw Errors.badRequest(UNKNOWN_TASK_KIND_MESSAGE);
  return key;
}
