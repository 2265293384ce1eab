/**
 * What every write of tasks shares (docs/monitoring.md "Tiers"): the transaction that holds
 * the user's row and knows the tier, and the checks run inside it (room under the tier's
 * limits, no duplicate), so two concurrent writes of one user are serialised and each
 * counts what the other committed.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import { MONITORING_MESSAGES, matchValue, type TaskKind } from '../common/monitoring-rules';
import * as repo from './monitoring-repository';
import type { TaskRow } from './monitoring-repository';
import { readTier, readUsage, type TierState } from './tiers';
import { DUPLICATE_TASK_MESSAGE } from './task-input';

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23505';
}

/**
 * Runs `work` in a transaction that holds the user's row (FOR UPDATE) and knows the tier:
 * every write that a limit guards goes through here.
 */
export async function locked<T>(db: Kysely<Database>, userId: string, work: (trx: Transaction<Database>, tier: TierState) => Promise<T>): Promise<T> {
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
export async function checkRoom(trx: Transaction<Database>, userId: string, tier: TierState, kind: TaskKind): Promise<void> {
  const usage = await readUsage(trx, userId);
  if (kind === 'domain') {
    if (usage.domainTasks >= tier.limits.max_domain_tasks) throw Errors.badRequest(MONITORING_MESSAGES.maxDomainTasks);
  } else if (usage.standardTasks >= tier.limits.max_standard_tasks) {
    throw Errors.badRequest(MONITORING_MESSAGES.maxTasks);
  }
}

/** A domain task outside the slots (a direct one): enterprise and elevated accounts only. */
export function checkDirectDomainAllowed(tier: TierState): void {
  if (tier.tier !== 'enterprise' && tier.tier !== 'elevated') throw Errors.badRequest(MONITORING_MESSAGES.maxDomainTasks);
}

export async function checkNotDuplicate(trx: Transaction<Database>, userId: string, kind: TaskKind, value: string, exceptId?: string) {
  if (await repo.findDuplicate(trx, userId, kind, matchValue(kind, value), exceptId)) throw Errors.badRequest(DUPLICATE_TASK_MESSAGE);
}

/** A domain task of one of the user's slots, created or given a new value; the slot shows the domain. */
export async function setSlotDomain(trx: Transaction<Database>, userId: string, tier: TierState, slot: string, domain: string): Promise<TaskRow> {
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

/**
 * A new domain task: the first current slot with no domain takes it; with none free it is
 * a direct one (enterprise and elevated accounts only), counted with the slots' tasks.
 */
export async function addDomainTask(trx: Transaction<Database>, userId: string, tier: TierState, domain: string): Promise<TaskRow> {
  const free = (await repo.listCurrentSlots(trx, userId)).find((s) => !s.domain && !s.task_id);
  if (free) return setSlotDomain(trx, userId, tier, free.id, domain);
  checkDirectDomainAllowed(tier);
  await checkNotDuplicate(trx, userId, 'domain', domain);
  await checkRoom(trx, userId, tier, 'domain');
  return repo.insertTask(trx, { userId, kind: 'domain', value: domain, matchValue: matchValue('domain', domain) });
}
