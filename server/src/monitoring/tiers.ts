/**
 * A user's monitoring tier and what it allows right now (docs/monitoring.md
 * 'Tiers'): elevated before enterprise before standard (at least one domain slot of a
 * domain subscription whose period has not ended) before free. The limits themselves are
 * `tierLimits` of the shared rules module; this file reads the account and counts what is
 * in use (tiers-repository.ts), inside the caller's transaction when it is checking a limit.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema';
import { tierLimits, type MonitoringTier, type TierLimits } from '../common/monitoring-rules';
import { enterpriseActive } from '../common/plan-status';
import * as repo from './tiers-repository';

type Db = Kysely<Database> | Transaction<Database>;

export interface TierState {
  tier: MonitoringTier;
  limits: TierLimits;
  domainSlots: number;
  is_enterprise: boolean;
  elevated: boolean;
}

/** What is in use, as the limits count it. */
export interface MonitoringUsage {
  standardTasks: number;
  domainTasks: number;
  /** Email and SMS channels with a value (a disabled channel, value '', does not count). */
  channels: number;
  webhooks: number;
}

export function tierOf(account: { elevated: boolean; enterprise: boolean }, domainSlots: number): MonitoringTier {
  if (account.elevated) return 'elevated';
  if (account.enterprise) return 'enterprise';
  return domainSlots > 0 ? 'standard' : 'free';
}

/**
 * The user's tier. With `lock`, the user's row is taken `FOR UPDATE` first: every add of a
 * task or channel does this inside its transaction, so two adds of one user run one after
 * the other and the second sees the first's row when it counts. Undefined for a closed or
 * unknown account.
 */
export async function readTier(db: Db, userId: string, options: { lock?: boolean } = {}): Promise<TierState | undefined> {
  const account = await repo.readTierAccount(db, userId, options.lock ?? false);
  if (!account) return undefined;
  const domainSlots = await repo.countDomainSlots(db, userId);
  const enterprise = enterpriseActive(account);
  const tier = tierOf({ elevated: account.elevated, enterprise }, domainSlots);
  return { tier, limits: tierLimits(tier, domainSlots), domainSlots, is_enterprise: enterprise, elevated: account.elevated };
}

/**
 * Counts what the limits count. Tasks are counted whether active or paused (resuming must
 * not pass a limit); a domain task of a slot whose subscription has lapsed is left out (it
 * stays until deleted, but it is not what a current slot pays for).
 */
export async function readUsage(db: Db, userId: string): Promise<MonitoringUsage> {
  const { tasks, channels } = await repo.countUsage(db, userId);
  return {
    standardTasks: Number(tasks.standard),
    domainTasks: Number(tasks.domain),
    channels: Number(channels.channels),
    webhooks: Number(channels.webhooks),
  };
}
