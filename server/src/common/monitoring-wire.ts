/**
 * The monitoring calls' wire contract (docs/monitoring.md "Calls"),
 * shared by the server and the dashboard: each answer shape is declared here once. Ids are
 * strings, times ISO 8601 strings.
 */
import type { ChannelKind, MonitoringTier, TaskKind } from './monitoring-rules';

/** GET /monitoring/info: the tier, its limits and what is in use. */
export interface MonitoringInfo {
  tier: MonitoringTier;
  /** Free, Standard, Enterprise or Elevated (the tier tag). */
  tier_label: string;
  /** Email and SMS channels together. */
  max_notification_channels: number;
  active_notification_channels: number;
  max_webhooks: number;
  active_webhooks: number;
  max_standard_tasks: number;
  active_standard_tasks: number;
  max_domain_tasks: number;
  active_domain_tasks: number;
  /** Domain slots of current domain subscriptions. */
  domain_slots: number;
  is_enterprise: boolean;
  elevated: boolean;
  sms_available: boolean;
}

/** A monitoring task as every dashboard call answers it. */
export interface MonitorTask {
  id: string;
  key: TaskKind;
  value: string;
  created: string;
  updated: string;
  active: boolean;
}

/** POST /monitoring/get-tasks. */
export interface TasksPage {
  tasks: MonitorTask[];
  total: number;
  page: number;
  next_page: number | null;
}

/** A notification channel (phone is the SMS channel). */
export interface NotificationChannel {
  id: string;
  key: ChannelKind;
  /** '' for a disabled channel. */
  value: string;
  created: string;
  updated: string;
  active: boolean;
  /** An email channel whose address is not confirmed yet (it gets no alert until then). */
  awaiting_confirmation: boolean;
  /** A webhook's signing secret: its last 4 characters. */
  secret_hint?: string;
  /** Why the system turned the channel off (e.g. the receiver answered 410). */
  disabled_reason?: string;
}

/** One kind of GET /notification-channels/info: its newest channel and whether another fits. */
export interface ChannelInfo {
  available: boolean;
  /** The newest channel's value; '' when there is none or it is disabled. */
  value: string;
  id: string | null;
  updated: string | null;
  active: boolean;
  /** The newest channel is an email address awaiting confirmation. */
  awaiting_confirmation: boolean;
}

/** GET /notification-channels/info: null for a kind the tier lacks. */
export type ChannelsInfo = Record<ChannelKind, ChannelInfo | null>;

/** A task of a report summary. */
export interface ReportTaskSummary {
  key: TaskKind;
  value: string;
  results_count: number;
}

/** One report of POST /monitoring/reports/get-reports. */
export interface ReportSummary {
  id: string;
  /** Matching records, every task counted. */
  results: number;
  created: string;
  /** The data well the segment belongs to. */
  database_name: string;
  tasks: ReportTaskSummary[];
}

/** POST /monitoring/reports/get-reports. */
export interface ReportsPage {
  reports: ReportSummary[];
  total_reports: number;
}

/**
 * A task's records in a report; `key`/`value` repeat the task's kind and value. `E` is the
 * dashboard search entry (breach data: attacker-controlled text).
 */
export interface ReportRecord<E> {
  task_type: TaskKind;
  task_value: string;
  key: TaskKind;
  value: string;
  /** Every matching record; `data` holds at most the first 1,000 still there. */
  results_count: number;
  data: E[];
  /** True on a domain task whose domain its owner has not verified (or whose verification expired): `data` is empty, the count is given. */
  domain_unverified?: boolean;
}

/** POST /monitoring/reports/get-report. */
export interface Report<E> {
  id: string;
  created: string;
  database_name: string;
  results: number;
  /** True when the reader has no search access: `data` is empty, counts are given. */
  values_hidden: boolean;
  records: ReportRecord<E>[];
}

/** The kinds of notice the server writes. */
export type NotificationType =
  | 'report'
  | 'delivery-failed'
  | 'search-expiration'
  | 'monitoring-expiration'
  | 'enterprise-expiration'
  | 'low-search-credits'
  | 'low-whois-credits'
  | 'global'
  /** An account's own security history (two-factor turned off by support). */
  | 'security';

/** A notice of POST /notifications/get. */
export interface InboxNotification {
  id: string;
  global: boolean;
  /** As it was before this read: the server marks the page seen after answering. */
  seen: boolean;
  /** A NotificationType; typed as text, as the column is (read as any string). */
  type: string;
  /** The message: plain text, rendered as text. */
  data: string;
  created: string;
  /** A dashboard path (a report notice links to /monitoring/reports/{id}), or null. */
  link: string | null;
}

/** POST /notifications/get. */
export interface NotificationsPage {
  notifications: InboxNotification[];
  total: number;
}

/** How a domain's control was proved (docs/monitoring.md "Domain verification"). */
export type DomainVerificationMethod = 'dns' | 'file' | 'email' | 'operator';

/** POST /monitoring/domains/get: one per domain of the caller's domain tasks. */
export interface DomainVerification {
  domain: string;
  /** Verified now (by this domain or a parent domain, within its validity). */
  verified: boolean;
  /** The verified domain that covers this one (itself or a parent), when verified. */
  verified_by: string | null;
  method: DomainVerificationMethod | null;
  verified_at: string | null;
  /** When the verification must be renewed; values are hidden again after it. */
  expires_at: string | null;
  /** The TXT record to add at the domain, as its whole text. */
  txt_record: string;
  /** Where the file is fetched from, and what it holds. */
  file_url: string;
  file_content: string;
  /** The role addresses a confirmation link can be mailed to. */
  role_addresses: string[];
  /** The address the pending link was mailed to, while it is valid. */
  mail_sent_to: string | null;
}

/** POST /monitoring/domains/check. */
export interface DomainCheckResult {
  verified: boolean;
  /** What was found, for the screen's live region. */
  message: string;
  domain: DomainVerification;
}
