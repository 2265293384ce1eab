/**
 * Monitoring's rules, shared by the server and the dashboard (as search-rules.ts is): the
 * task and channel kinds, every validation and its exact message, how a value is
 * normalised for matching, the tiers and their limits, and the page sizes. The server is
 * the authority (it checks every limit again inside the insert's transaction); the
 * dashboard imports this module so it can answer without a round trip and never drifts.
 * The design behind these rules is in docs/monitoring.md.
 */
import { isValidEmail } from './credentials';
// Lengths in characters (code points), counted as search queries are.
import { queryLength } from './search-rules';

export const TASK_KINDS = ['username', 'email', 'phone', 'name', 'domain'] as const;
export type TaskKind = (typeof TASK_KINDS)[number];
/** The standard kinds (counted against max_standard_tasks); `domain` is counted apart. */
export const STANDARD_TASK_KINDS = ['username', 'email', 'phone', 'name'] as const;
export type StandardTaskKind = (typeof STANDARD_TASK_KINDS)[number];

/** Channel kinds as stored and sent. The dashboard's `sms` tab is sent as `phone`. */
export const CHANNEL_KINDS = ['email', 'phone', 'webhook'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

export function isTaskKind(value: unknown): value is TaskKind {
  return typeof value === 'string' && (TASK_KINDS as readonly string[]).includes(value);
}

/** `sms` is accepted as an alias of `phone` everywhere a channel kind is read. */
export function channelKind(value: unknown): ChannelKind | null {
  if (value === 'sms') return 'phone';
  return typeof value === 'string' && (CHANNEL_KINDS as readonly string[]).includes(value) ? (value as ChannelKind) : null;
}

export const VALUE_MAX_LENGTH = 256;
export const USERNAME_MIN_LENGTH = 4;
export const USERNAME_MAX_LENGTH = 64;

/** The refusal messages, word for word: clients match on them. */
export const MONITORING_MESSAGES = {
  empty: 'invalid input',
  tooLong: 'input longer than max length',
  email: 'invalid email format',
  phone: 'invalid phone number',
  phoneHint: 'Min 4 digits, max 15, no spaces, dashes or country code',
  url: 'invalid URL',
  webhookHint: 'Webhook must contain (http|https)',
  domain: 'invalid domain',
  domainValue: 'invalid domain value',
  nameLength: 'value must be 4 to 64 characters',
  maxWebhooks: 'Can not add additional webhooks (reached maximum)',
  maxChannels: 'Can not add additional channels (reached maximum)',
  maxDomainTasks: 'Can not add additional domain tasks (reached maximum)',
  maxTasks: 'Can not add additional tasks (reached maximum)',
} as const;

const PHONE_PATTERN = /^\d{4,15}$/;
// A host name in {host} form: labels of letters, digits and hyphens (not at either end),
// at least two labels, a top-level label that is not all digits. Unicode names are
// accepted and stored in their ASCII (punycode) form.
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** The ASCII, lower-case form of a host name, or null when it is not one. */
export function normalizeDomain(value: string): string | null {
  let host = value.trim().toLowerCase().replace(/\.$/, '');
  if (!host || host.length > 253 || /[\s/:@?#\\[\]]/.test(host)) return null;
  if ([...host].some((c) => c.codePointAt(0)! > 0x7f)) {
    try {
      host = new URL(`http://${host}`).hostname;
    } catch {
      return null;
    }
  }
  const labels = host.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null;
  if (/^\d+$/.test(labels[labels.length - 1]!)) return null;
  return host;
}

export function isWebhookUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0 && !url.username && !url.password;
  } catch {
    return false;
  }
}

/** An email address or a phone number (4 to 15 digits): tasks and channels check them alike. */
function contactProblem(kind: 'email' | 'phone', value: string): string | null {
  if (kind === 'email') return isValidEmail(value) ? null : MONITORING_MESSAGES.email;
  return PHONE_PATTERN.test(value) ? null : MONITORING_MESSAGES.phone;
}

/** The first rule a task value breaks, or null. */
export function taskValueProblem(kind: TaskKind, value: string): string | null {
  const v = value.trim();
  if (!v) return MONITORING_MESSAGES.empty;
  if (queryLength(v) > VALUE_MAX_LENGTH) return MONITORING_MESSAGES.tooLong;
  switch (kind) {
    case 'email':
    case 'phone':
      return contactProblem(kind, v);
    case 'domain':
      return normalizeDomain(v) ? null : MONITORING_MESSAGES.domain;
    case 'username':
    case 'name': {
      const n = queryLength(v);
      return n >= USERNAME_MIN_LENGTH && n <= USERNAME_MAX_LENGTH ? null : MONITORING_MESSAGES.nameLength;
    }
  }
}

/**
 * The first rule a channel value breaks, or null. An empty value is not a problem here:
 * it means "disabled" on update and is refused on add by the caller.
 */
export function channelValueProblem(kind: ChannelKind, value: string): string | null {
  const v = value.trim();
  if (!v) return null;
  if (queryLength(v) > VALUE_MAX_LENGTH) return MONITORING_MESSAGES.tooLong;
  switch (kind) {
    case 'email':
    case 'phone':
      return contactProblem(kind, v);
    case 'webhook':
      return isWebhookUrl(v) ? null : MONITORING_MESSAGES.url;
  }
}

/**
 * The value as matched and kept unique per user and kind: e-mails, usernames and domains
 * lower-cased, phones as digits, names lower-cased with runs of spaces folded; the engine
 * normalises its terms the same way (engine/crates/format/src/fields.rs `normalize`).
 */
export function matchValue(kind: TaskKind, value: string): string {
  const v = value.trim();
  switch (kind) {
    case 'phone':
      return v.replace(/\D/g, '');
    case 'domain':
      return normalizeDomain(v) ?? v.toLowerCase();
    case 'name':
      return v.toLowerCase().replace(/\s+/g, ' ');
    default:
      return v.toLowerCase();
  }
}

export type MonitoringTier = 'free' | 'standard' | 'enterprise' | 'elevated';

/** What `GET /monitoring/info` reports as maxima. */
export interface TierLimits {
  max_standard_tasks: number;
  max_domain_tasks: number;
  /** Email and SMS channels together. */
  max_notification_channels: number;
  max_webhooks: number;
  /** SMS channels need a paid tier. */
  sms: boolean;
}

/**
 * The tiers of /subscriptions/monitoring: Start is free with 10 tasks and email only; Domain
 * Monitoring (the `standard` tier: at least one paid domain slot) adds webhooks and one
 * domain task per slot; Enterprise has 500 tasks and domain tasks; elevated users are not
 * limited in practice. Domain slots bought on top of enterprise add to its domain tasks.
 */
export function tierLimits(tier: MonitoringTier, domainSlots: number): TierLimits {
  switch (tier) {
    case 'free':
      return { max_standard_tasks: 10, max_domain_tasks: 0, max_notification_channels: 1, max_webhooks: 0, sms: false };
    case 'standard':
      return { max_standard_tasks: 10, max_domain_tasks: domainSlots, max_notification_channels: 2, max_webhooks: 1, sms: true };
    case 'enterprise':
      return { max_standard_tasks: 500, max_domain_tasks: 25 + domainSlots, max_notification_channels: 4, max_webhooks: 3, sms: true };
    case 'elevated':
      return { max_standard_tasks: 10_000, max_domain_tasks: 1_000, max_notification_channels: 10, max_webhooks: 10, sms: true };
  }
}

export function tierLabel(tier: MonitoringTier): string {
  return { free: 'Free', standard: 'Standard', enterprise: 'Enterprise', elevated: 'Elevated' }[tier];
}

/** Page sizes of the inbox and of the reports list. */
export const NOTIFICATION_PAGE_SIZES = [20, 40] as const;
export const REPORTS_PAGE_SIZE = 20;
/** Tasks come in one page of this many (the enterprise maximum); /v2 pages by 100. */
export const TASKS_PAGE_SIZE = 500;
export const API_TASKS_PAGE_SIZE = 100;
/** A report keeps at most this many matched records per task (results_count is the whole count). */
export const REPORT_RECORDS_PER_TASK = 1000;

/** The role addresses (local parts) a domain verification link may be mailed to (docs/monitoring.md "Domain verification"). */
export const DOMAIN_ROLE_ADDRESSES = ['security', 'admin', 'hostmaster', 'webmaster', 'postmaster'] as const;
export type DomainRoleAddress = (typeof DOMAIN_ROLE_ADDRESSES)[number];

/** True when a verified domain covers `domain`: the same domain or one of its subdomains (both normalised). */
export function domainCovers(verified: string, domain: string): boolean {
  return domain === verified || domain.endsWith(`.${verified}`);
}
