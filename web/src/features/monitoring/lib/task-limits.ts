import { MONITORING_MESSAGES, type ChannelKind, type TaskKind } from '@common/monitoring-rules';
import type { MonitoringInfo } from '../api/monitoring-api';

/** The documented 'reached maximum' message when one more active task of `kind` would pass the limit, else null. */
export function taskLimitProblem(info: MonitoringInfo | undefined, kind: TaskKind): string | null {
  if (!info) return null;
  if (kind === 'domain') return info.active_domain_tasks >= info.max_domain_tasks ? MONITORING_MESSAGES.maxDomainTasks : null;
  return info.active_standard_tasks >= info.max_standard_tasks ? MONITORING_MESSAGES.maxTasks : null;
}

/** The same for one more channel: webhooks and the other channels are counted apart. */
export function channelLimitProblem(info: MonitoringInfo | undefined, kind: ChannelKind): string | null {
  if (!info) return null;
  if (kind === 'webhook') return info.max_webhooks > 0 && info.active_webhooks >= info.max_webhooks ? MONITORING_MESSAGES.maxWebhooks : null;
  return info.max_notification_channels > 0 && info.active_notification_channels >= info.max_notification_channels
    ? MONITORING_MESSAGES.maxChannels
    : null;
}
