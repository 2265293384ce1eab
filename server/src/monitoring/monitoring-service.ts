/**
 * Monitoring tasks and domain slots (docs/monitoring.md): every
 * validation and message of the shared monitoring rules, the tier limits checked inside the write's
 * transaction after the user's row is locked, duplicates refused, and another user's id
 * answered 404. Used by the dashboard routes, /v2/monitoring and the Monitor API V1.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import {
  MONITORING_MESSAGES,
  STANDARD_TASK_KINDS,
  TASKS_PAGE_SIZE,
  isTaskKind,
  matchValue,
  normalizeDomain,
  taskValueProblem,
  tierLabel,
  type TaskKind,
} from '../common/monitoring-rules';
import type { MonitorTask, MonitoringInfo } from '../common/monitoring-wire';
import * as repo from './monitoring-repository';
import type { TaskRow } from './monitoring-repository';
import { readTier, readUsage, type TierState } from './tiers';

// Delivery holds back alerts to an email channel until it is confirmed, and mails the link.
export { createChannelConfirmations, type ChannelConfirmations } from './channels-confirmation';

export const DUPLICATE_TASK_MESSAGE = 'You are already monitoring this value';
export const UNKNOWN_TASK_KIND_MESSAGE = 'key must be one of username, email, phone, name, domain';
export const TASK_NOT_FOUND = 'Task not found';
export const DOMAIN_NOT_FOUND = 'Domain not found';

/** A task as every dashboard call answers it. */
export function taskView(row: TaskRow): MonitorTask {
  return { id: String(row.id), key: row.kind, value: row.value, created: row.created.toISOString(), updated: row.updated.toISOString(), active: row.active };
}

/** A bigint id as text, or undefined when it cannot be one (answered 404, never a database error). */
export function taskId(id: unknown): string | undefined {
  const text = typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : typeof id === 'string' ? id.trim() : '';
  return /^[1-9]\d{0,17}$/.test(text) ? text : undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function slotId(id: unknown): string | undefined {
  return typeof id === 'string' && UUID.test(id.trim()) ? id.trim().toLowerCase() : undefined;
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23505';
}

/** The value as stored: trimmed; a domain in its ASCII lower-case form. */
function storedValue(kind: TaskKind, value: string): string {
  const v = value.trim();
  return kind === 'domain' ? (normalizeDomain(v) ?? v) : v;
}

function checkValue(kind: TaskKind, value: string): void {
  const problem = taskValueProblem(kind, value);
  if (problem) throw Errors.badRequest(problem);
}

function parseKind(key: unknown): TaskKind {
  if (!isTaskKind(key)) throw Errors.badRequest(UNKNOWN_TASK_KIND_MESSAGE);
  return key;
}

export function createMonitoringService(deps: { db: Kysely<Database> }) {
  const { db } = deps;

  /**
   * Runs `work` in a transaction that holds the user's row (FOR UPDATE) and knows the tier:
   * every write that a limit guards goes through here, so two concurrent writes of one user
   * are serialised and each counts what the other committed.
   */
  async function locked<T>(userId: string, work: (trx: Transaction<Database>, tier: TierState) => Promise<T>): Promise<T> {
    try {
      return await db.transaction().execute(async (trx) => {
        const tier = await readTier(trx, userId, { lock: true });
        if (!tier) throw Errors.unauthorized();
        return work(trx, tier);
      });
    } catch (error) {
      // The unique (user, kind, value) index is the last word on duplicates.
      if (isUniqueViolation(error)) throw Errors.badRequest(DUPLICATE_TASK_MESSAGE);
      throw error;
    }
  }

  /** Throws the 'reached maximum' message when one more task of `kind` does not fit. */
  async function checkRoom(trx: Transaction<Database>, userId: string, tier: TierState, kind: TaskKind): Promise<void> {
    const usage = await readUsage(trx, userId);
    if (kind === 'domain') {
      if (usage.domainTasks >= tier.limits.max_domain_tasks) throw Errors.badRequest(MONITORING_MESSAGES.maxDomainTasks);
    } else if (usage.standardTasks >= tier.limits.max_standard_tasks) {
      throw Errors.badRequest(MONITORING_MESSAGES.maxTasks);
    }
  }

  async function checkNotDuplicate(trx: Transaction<Database>, userId: string, kind: TaskKind, value: string, exceptId?: string) {
    if (await repo.findDuplicate(trx, userId, kind, matchValue(kind, value), exceptId)) throw Errors.badRequest(DUPLICATE_TASK_MESSAGE);
  }

  /** A domain task of one of the user's slots, created or given a new value; the slot shows the domain. */
  async function setSlotDomain(trx: Transaction<Database>, userId: string, tier: TierState, slot: string, domain: string): Promise<TaskRow> {
    const existing = await repo.getSlotTask(trx, slot);
    await checkNotDuplicate(trx, userId, 'domain', domain, existing?.id);
    let row: TaskRow;
    if (existing) {
      row = await repo.updateTask(trx, userId, existing.id, { value: domain, matchValue: matchValue('domain', domain) });
    } else {
      await checkRoom(trx, userId, tier, 'domain');
      row = await repo.insertTask(trx, { userId, kind: 'domain', value: domain, matchValue: matchValue('domain', domain), subscriptionDomainId: slot });
    }
    await repo.setSlotDomain(trx, userId, [slot], domain);
    return row;
  }

  /** Deletes the user's tasks (all of `ids` must be theirs); a slot's task empties its slot, which stays. */
  async function removeTasks(userId: string, rawIds: unknown[], options: { domainOnly?: boolean } = {}): Promise<void> {
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

  const service = {
    /** GET /monitoring/info. */
    async info(userId: string): Promise<MonitoringInfo> {
      const tier = await readTier(db, userId);
      if (!tier) throw Errors.unauthorized();
      const usage = await readUsage(db, userId);
      return {
        tier: tier.tier,
        tier_label: tierLabel(tier.tier),
        max_notification_channels: tier.limits.max_notification_channels,
        active_notification_channels: usage.channels,
        max_webhooks: tier.limits.max_webhooks,
        active_webhooks: usage.webhooks,
        max_standard_tasks: tier.limits.max_standard_tasks,
        active_standard_tasks: usage.standardTasks,
        max_domain_tasks: tier.limits.max_domain_tasks,
        active_domain_tasks: usage.domainTasks,
        domain_slots: tier.domainSlots,
        is_enterprise: tier.is_enterprise,
        elevated: tier.elevated,
        sms_available: tier.limits.sms,
      };
    },

    /** The user's tasks, oldest first, `pageSize` a page; `kinds` narrows. */
    async listTasks(userId: string, options: { activeOnly?: boolean; page?: number; pageSize?: number; kinds?: readonly TaskKind[] } = {}) {
      const pageSize = options.pageSize ?? TASKS_PAGE_SIZE;
      const page = Math.max(1, Math.trunc(options.page ?? 1));
      const { rows, total } = await repo.listTasks(db, userId, {
        activeOnly: options.activeOnly,
        kinds: options.kinds,
        offset: (page - 1) * pageSize,
        limit: pageSize,
      });
      return { rows, total, page, next_page: page * pageSize < total ? page + 1 : null };
    },

    countStandardTasks: (userId: string) => repo.countTasks(db, userId, STANDARD_TASK_KINDS),

    async getTask(userId: string, id: unknown): Promise<TaskRow> {
      const key = taskId(id);
      const row = key ? await repo.getTask(db, userId, key) : undefined;
      if (!row) throw Errors.notFound(TASK_NOT_FOUND);
      return row;
    },

    /**
     * Adds a task. A domain task takes the first current slot with no domain, as set-domain
     * does (the Domain tab of Monitor Tasks uses a paid slot); with none free it is a direct
     * one: enterprise and elevated accounts only; counted with the slots' tasks.
     */
    async addTask(userId: string, key: unknown, rawValue: string): Promise<TaskRow> {
      const kind = parseKind(key);
      checkValue(kind, rawValue);
      const value = storedValue(kind, rawValue);
      return locked(userId, async (trx, tier) => {
        if (kind === 'domain') {
          const free = (await repo.listCurrentSlots(trx, userId)).find((s) => !s.domain && !s.task_id);
          if (free) return setSlotDomain(trx, userId, tier, free.id, value);
          if (tier.tier !== 'enterprise' && tier.tier !== 'elevated') throw Errors.badRequest(MONITORING_MESSAGES.maxDomainTasks);
        }
        await checkNotDuplicate(trx, userId, kind, value);
        await checkRoom(trx, userId, tier, kind);
        return repo.insertTask(trx, { userId, kind, value, matchValue: matchValue(kind, value) });
      });
    },

    /**
     * Changes a task's value, kind or active flag. A slot's task stays a domain task and its
     * slot follows its value; moving a task to the other class (standard, domain) needs room there.
     */
    async updateTask(userId: string, id: unknown, changes: { key?: unknown; value?: string; active?: boolean }): Promise<TaskRow> {
      const key = taskId(id);
      if (!key) throw Errors.notFound(TASK_NOT_FOUND);
      return locked(userId, async (trx, tier) => {
        const row = await repo.getTask(trx, userId, key, { lock: true });
        if (!row) throw Errors.notFound(TASK_NOT_FOUND);
        const kind = changes.key === undefined ? row.kind : parseKind(changes.key);
        if (row.subscription_domain_id && kind !== 'domain') throw Errors.badRequest(MONITORING_MESSAGES.domain);
        const rawValue = changes.value ?? row.value;
        checkValue(kind, rawValue);
        const value = storedValue(kind, rawValue);
        if (kind !== row.kind || matchValue(kind, value) !== row.match_value) await checkNotDuplicate(trx, userId, kind, value, row.id);
        if ((kind === 'domain') !== (row.kind === 'domain')) {
          if (kind === 'domain' && tier.tier !== 'enterprise' && tier.tier !== 'elevated') throw Errors.badRequest(MONITORING_MESSAGES.maxDomainTasks);
          await checkRoom(trx, userId, tier, kind);
        }
        const updated = await repo.updateTask(trx, userId, row.id, { kind, value, matchValue: matchValue(kind, value), active: changes.active });
        if (row.subscription_domain_id && value !== row.value) await repo.setSlotDomain(trx, userId, [row.subscription_domain_id], value);
        return updated;
      });
    },

    /** Deletes tasks; every id must be the caller's (else 404 and nothing is deleted). */
    deleteTasks: (userId: string, ids: unknown[]) => removeTasks(userId, ids),

    /** Deletes domain tasks; a slot's task empties its slot (the slot stays, to be set again). */
    clearDomains: (userId: string, ids: unknown[]) => removeTasks(userId, ids, { domainOnly: true }),

    /**
     * POST /monitoring/set-domain: with a slot id, that slot's domain (its task created or
     * updated); without, the first current slot with no domain, else (enterprise, elevated)
     * a direct domain task. 'invalid domain value' for a bad domain; a slot that is not the
     * caller's current slot: 404.
     */
    async setDomain(userId: string, id: unknown, rawDomain: string): Promise<{ value: string; task: TaskRow }> {
      const domain = normalizeDomain(rawDomain);
      if (!domain || rawDomain.trim().length > 256) throw Errors.badRequest(MONITORING_MESSAGES.domainValue);
      const slot = id === undefined || id === null || id === '' ? undefined : slotId(id);
      if (id !== undefined && id !== null && id !== '' && !slot) throw Errors.notFound(DOMAIN_NOT_FOUND);
      const task = await locked(userId, async (trx, tier) => {
        if (slot) {
          if (!(await repo.getCurrentSlot(trx, userId, slot))) throw Errors.notFound(DOMAIN_NOT_FOUND);
          return setSlotDomain(trx, userId, tier, slot, domain);
        }
        const free = (await repo.listCurrentSlots(trx, userId)).find((s) => !s.domain && !s.task_id);
        if (free) return setSlotDomain(trx, userId, tier, free.id, domain);
        if (tier.tier !== 'enterprise' && tier.tier !== 'elevated') throw Errors.badRequest(MONITORING_MESSAGES.maxDomainTasks);
        await checkNotDuplicate(trx, userId, 'domain', domain);
        await checkRoom(trx, userId, tier, 'domain');
        return repo.insertTask(trx, { userId, kind: 'domain', value: domain, matchValue: matchValue('domain', domain) });
      });
      return { value: domain, task };
    },

    /**
     * The user's domains for /v2 and V1: each current slot (id = the slot's id; domain null
     * until set) and each direct domain task (id = the task's id).
     */
    async listDomains(userId: string): Promise<{ id: string; domain: string | null; updated: Date; active: boolean }[]> {
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
    },

    /** /v2 update-domain: a slot id sets the slot, a task id updates that domain task, no id adds. */
    async updateDomain(userId: string, id: unknown, domain: string): Promise<{ value: string }> {
      if (id === undefined || id === null || id === '' || slotId(id)) return service.setDomain(userId, id, domain);
      const key = taskId(id);
      const row = key ? await repo.getTask(db, userId, key) : undefined;
      if (!row || row.kind !== 'domain') throw Errors.notFound(DOMAIN_NOT_FOUND);
      if (!normalizeDomain(domain)) throw Errors.badRequest(MONITORING_MESSAGES.domainValue);
      const updated = await service.updateTask(userId, key, { value: domain });
      return { value: updated.value };
    },

    /** /v2 clear-domain: a slot id empties the slot (and deletes its task); a task id deletes that domain task. */
    async clearDomain(userId: string, id: unknown): Promise<void> {
      const slot = slotId(id);
      if (!slot) return removeTasks(userId, [id], { domainOnly: true });
      await db.transaction().execute(async (trx) => {
        if (!(await repo.getCurrentSlot(trx, userId, slot))) throw Errors.notFound(DOMAIN_NOT_FOUND);
        const task = await repo.getSlotTask(trx, slot);
        if (task) await repo.deleteTasks(trx, userId, [task.id]);
        await repo.setSlotDomain(trx, userId, [slot], null);
      });
    },
  };
  return service;
}

export type MonitoringService = ReturnType<typeof createMonitoringService>;
