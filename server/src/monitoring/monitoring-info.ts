/** GET /monitoring/info: the user's monitoring tier, its limits and what is in use. */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import { tierLabel } from '../common/monitoring-rules';
import type { MonitoringInfo } from '../common/monitoring-wire';
import { readTier, readUsage } from './tiers';

export async function monitoringInfo(db: Kysely<Database>, userId: string): Promise<MonitoringInfo> {
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
}
