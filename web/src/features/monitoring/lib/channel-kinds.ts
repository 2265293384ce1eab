import { MONITORING_MESSAGES, type ChannelKind, type TaskKind } from '@common/monitoring-rules';

/** Block titles of the channel page: the phone kind is shown as SMS. */
export const CHANNEL_TITLES: Record<ChannelKind, string> = { phone: 'SMS', email: 'Email', webhook: 'Webhook' };

/** Order of the channel page's blocks. */
export const CHANNEL_ORDER: ChannelKind[] = ['phone', 'email', 'webhook'];

export const CHANNEL_PLACEHOLDERS: Record<ChannelKind, string> = {
  phone: '15551234567',
  email: 'you@example.com',
  webhook: 'https://example.com/hooks/monitoring',
};

export const CHANNEL_HINTS: Partial<Record<ChannelKind, string>> = {
  phone: MONITORING_MESSAGES.phoneHint,
  webhook: MONITORING_MESSAGES.webhookHint,
};

export const TASK_TITLES: Record<TaskKind, string> = {
  username: 'Username',
  email: 'Email',
  phone: 'Phone',
  name: 'Name',
  domain: 'Domain',
};

export const TASK_PLACEHOLDERS: Record<TaskKind, string> = {
  username: 'jdoe1984',
  email: 'you@example.com',
  phone: '15551234567',
  name: 'John Doe',
  domain: 'example.com',
};

export const TASK_HINTS: Partial<Record<TaskKind, string>> = {
  phone: MONITORING_MESSAGES.phoneHint,
  username: '4 to 64 characters',
  name: '4 to 64 characters',
  domain: 'A host name such as example.com: its addresses and URLs are matched, subdomains included',
};
