/**
 * A user's monitoring tier and what it allows right now (docs/monitoring.md
 * 'Tiers'): elevated before enterprise before standard (at least one domain slot of a
 * domain subscription whose period has not ended) before free. The limits themselves are
 * `tierLimits` of the shared rules module; this file reads the account and counts what is
 * in use, inside the caller's transaction when it is checking a limit.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema';
import { tierLimits, type MonitoringTier, type TierLimits } from '../common/monitoring-rules';
import { enterpriseActive } from '../common/plan-status';

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

/** Current domain slots: slots of the user's domain subscriptions whose period has not ended. */
export async function countDomainSlots(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('subscription_domains as sd')
    .innerJoin('subscriptions as s', 's.id', 'sd.subscription_id')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('sd.user_id', '=', userId)
    .where('s.user_id', '=', userId)
    .where('s.plan', '=', 'domain')
    .where('s.period_end', '>', sql<Date>`now()`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The user's tier. With `lock`, the user's row is taken `FOR UPDATE` first: every add of a
 * task or channel does this inside its transaction, so two adds of one user run one after
 * the other and the second sees the first's row when it counts. Undefined for a closed or
 * unknown account.
 */
export async function readTier(db: Db, userId: string, options: { lock?: boolean } = {}): Promise<TierState | undefined> {
  let query = db
    .selectFrom('users')
    .select(['elevated', 'is_enterprise', 'enterprise_until'])
    .where('id', '=', userId)
    .where('closed_at', 'is', null);
  if (options.lock) query = query.forUpdate();
  const account = await query.executeTakeFirst();
  if (!account) return undefined;
  const domainSlots = await countDomainSlots(db, userId);
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
  const tasks = await db
    .selectFrom('monitor_tasks as t')
    .leftJoin('subscription_domains as sd', 'sd.id', 't.subscription_domain_id')
    .leftJoin('subscriptions as s', 's.id', 'sd.subscription_id')
    .select([
      sql<string>`count(*) filter (where t.kind <> 'domain')`.as('standard'),
      sql<string>`count(*) filter (where t.kind = 'domain' and (t.subscription_domain_id is null or s.period_end > now()))`.as('domain'),
    ])
    .where('t.user_id', '=', userId)
    .executeTakeFirstOrThrow();
  const channels = await db
    .selectFrom('notification_channels')
    .select([
      sql<string>`count(*) filter (where kind <> 'webhook' and value <> '')`.as('channels'),
      sql<string>`count(*) filter (where kind = 'webhook' and value <> '')`.as('webhooks'),
    ])
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return {
    standardTasks: Number(tasks.standard),
    domainTasks: Number(tasks.domain),
    channels: Number(channels.channels),
    webhooks: Number(channels.webhooks),
  };
}
