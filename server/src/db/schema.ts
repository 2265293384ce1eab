/** Kysely table types. Mirrors migrations/; keep the two in step. */
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface AppSecretsTable {
  name: string;
  value: string;
  created_at: Generated<Date>;
}

export interface UsersTable {
  id: Generated<string>;
  email: string;
  password_hash: string;
  email_verified_at: NullableTimestamp;
  created_at: Generated<Date>;
  closed_at: NullableTimestamp;
  search_subscribed_until: NullableTimestamp;
  search_is_recurring: Generated<boolean>;
  search_credits: Generated<number>;
  whois_credits: Generated<number>;
  is_enterprise: Generated<boolean>;
  elevated: Generated<boolean>;
  law_enforcement: Generated<boolean>;
  api_key_hash: string | null;
  api_key_hint: string | null;
  api_key_created_at: NullableTimestamp;
  notify_search_expiration: Generated<boolean>;
  notify_monitoring_expiration: Generated<boolean>;
  notify_enterprise_expiration: Generated<boolean>;
  notify_low_search_credits: Generated<boolean>;
  notify_low_whois_credits: Generated<boolean>;
  store_invoices: Generated<boolean>;
  store_extra_invoice_data: Generated<boolean>;
  /** {name, company, address, vat_id} printed on invoices while store_extra_invoice_data is on. */
  invoice_details: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
  search_locked_until: NullableTimestamp;
  search_lock_count: Generated<number>;
  search_barred: Generated<boolean>;
  enterprise_until: NullableTimestamp;
  /** Set while an operator has the account suspended (migration 20261128T0013). */
  suspended_at: NullableTimestamp;
  suspended_reason: string | null;
  suspended_by: string | null;
  /** The verification law-enforcement status rests on, who set it and when. */
  law_enforcement_reference: string | null;
  law_enforcement_set_by: string | null;
  law_enforcement_set_at: NullableTimestamp;
  totp_secret_enc: string | null;
  totp_pending_secret_enc: string | null;
  totp_enabled_at: NullableTimestamp;
  totp_last_step: number | null;
}

export interface RecoveryCodesTable {
  id: Generated<string>;
  user_id: string;
  code_hash: string;
  created_at: Generated<Date>;
  used_at: NullableTimestamp;
}

export interface PasskeysTable {
  id: Generated<string>;
  user_id: string;
  credential_id: string;
  public_key: Buffer;
  counter: Generated<number>;
  transports: ColumnType<string[], string | undefined, string>;
  name: string;
  created_at: Generated<Date>;
  last_used_at: NullableTimestamp;
}

export interface CreditLedgerTable {
  id: Generated<string>;
  user_id: string;
  kind: 'search' | 'whois';
  delta: number;
  balance_after: number;
  reason: string;
  reference: string | null;
  created_at: Generated<Date>;
}

export interface OneTimeTokensTable {
  token_hash: string;
  purpose: string;
  user_id: string | null;
  payload: ColumnType<unknown, string | null | undefined, string | null> | null;
  created_at: Generated<Date>;
  expires_at: Timestamp;
  used_at: NullableTimestamp;
}

export interface SessionsTable {
  id: Generated<string>;
  user_id: string;
  remember: boolean;
  created_at: Generated<Date>;
  last_used_at: Generated<Date>;
  expires_at: Timestamp;
  revoked_at: NullableTimestamp;
  revoked_reason: string | null;
  /** The address the session signed in from, in clear for its owner's session list; erased when it ends. */
  ip: string | null;
  user_agent: string | null;
}

export interface RefreshTokensTable {
  token_hash: string;
  session_id: string;
  created_at: Generated<Date>;
  used_at: NullableTimestamp;
}

export interface LoginKnownIpsTable {
  user_id: string;
  ip_hash: string;
  last_seen_at: Generated<Date>;
}

export type SignInMethod = 'password' | 'code' | 'recovery code' | 'passkey';

/** An account's sign-ins and failed attempts; the newest 20 per account are kept. */
export interface SignInHistoryTable {
  id: Generated<string>;
  user_id: string;
  at: Generated<Date>;
  ip: string;
  user_agent: string | null;
  method: SignInMethod;
  success: boolean;
}

export interface OutboxTable {
  id: Generated<string>;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  created_at: Generated<Date>;
  sent_at: NullableTimestamp;
  attempts: Generated<number>;
  last_error: string | null;
  headers: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
}

export interface NotificationsTable {
  id: Generated<string>;
  user_id: string | null;
  global: Generated<boolean>;
  seen: Generated<boolean>;
  type: string;
  data: string;
  created: Generated<Date>;
  /** Where the notice points (a report: /monitoring/reports/{id}). */
  link: string | null;
  /** Makes a notice once-only (daily notices: kind, user, day). */
  dedupe_key: string | null;
}

export interface SearchCountsTable {
  user_id: string;
  day: ColumnType<Date, string, string>;
  searches: Generated<number>;
}

export interface DataWellsTable {
  id: Generated<string>;
  name: string;
  image: string | null;
  date: ColumnType<Date | null, string | null | undefined, string | null>;
  records: ColumnType<string, number | string | undefined, number | string>;
  description: Generated<string>;
  data_types: ColumnType<string[], string[] | undefined, string[]>;
  is_sensitive: Generated<boolean>;
  segment_ids: ColumnType<string[], string[] | undefined, string[]>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  /** Breach API v3's `Name`: stable, no spaces, unique case-insensitively. */
  breach_name: string;
  /** The breached site's domain, '' when none. */
  domain: Generated<string>;
  is_verified: Generated<boolean>;
  is_fabricated: Generated<boolean>;
  is_retired: Generated<boolean>;
  is_spam_list: Generated<boolean>;
  is_malware: Generated<boolean>;
  is_subscription_free: Generated<boolean>;
  is_stealer_log: Generated<boolean>;
}

export interface ProductsTable {
  sku: string;
  price_cents: number;
  updated_at: Generated<Date>;
}

export type PaymentStatus = 'pending' | 'paid' | 'refunded' | 'expired';

export interface PaymentsTable {
  id: Generated<string>;
  user_id: string;
  sku: string;
  quantity: number;
  amount_cents: number;
  method: 'card' | 'crypto';
  provider: string;
  provider_ref: string | null;
  provider_subscription_id: string | null;
  status: ColumnType<PaymentStatus, PaymentStatus | undefined, PaymentStatus>;
  details: ColumnType<Record<string, unknown>, string | undefined, string>;
  last_event_at: NullableTimestamp;
  expires_at: NullableTimestamp;
  created_at: Generated<Date>;
  paid_at: NullableTimestamp;
  refunded_at: NullableTimestamp;
}

export interface PaymentEventsTable {
  id: Generated<string>;
  provider: string;
  event_id: string;
  event_type: string;
  occurred_at: Timestamp;
  payload: ColumnType<unknown, string, string>;
  received_at: Generated<Date>;
  processed_at: NullableTimestamp;
  attempts: Generated<number>;
  last_error: string | null;
}

import type { BillingInterval, Plan } from '../common/catalogue';
export type { BillingInterval, Plan };

export interface SubscriptionsTable {
  id: Generated<string>;
  user_id: string;
  plan: Plan;
  billing_interval: BillingInterval;
  recurring: boolean;
  quantity: Generated<number>;
  period_end: Timestamp;
  provider: string | null;
  provider_subscription_id: string | null;
  cancel_requested_at: NullableTimestamp;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface SubscriptionDomainsTable {
  id: Generated<string>;
  subscription_id: string;
  user_id: string;
  domain: string | null;
  updated_at: Generated<Date>;
}

export interface InvoicesTable {
  id: string;
  user_id: string;
  payment_id: string | null;
  item_type: string;
  quantity: number;
  amount_cents: number;
  method: string;
  extra_info: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
  created: Generated<Date>;
}

export interface EventCodesTable {
  code: string;
  grants: ColumnType<{ sku: string; quantity: number }[], string, string>;
  max_uses: Generated<number>;
  uses: Generated<number>;
  expires_at: NullableTimestamp;
  created_at: Generated<Date>;
}

export interface EventCodeRedemptionsTable {
  code: string;
  user_id: string;
  redeemed_at: Generated<Date>;
}

export interface MarketingBannersTable {
  id: Generated<string>;
  markup: string;
  created_at: Generated<Date>;
  cleared_at: NullableTimestamp;
}

import type { ChannelKind, TaskKind } from '../common/monitoring-rules';

export interface MonitorTasksTable {
  id: Generated<string>;
  user_id: string;
  kind: TaskKind;
  value: string;
  match_value: string;
  active: Generated<boolean>;
  subscription_domain_id: string | null;
  created: Generated<Date>;
  updated: Generated<Date>;
}

export interface NotificationChannelsTable {
  id: Generated<string>;
  user_id: string;
  kind: ChannelKind;
  value: Generated<string>;
  secret: string | null;
  active: Generated<boolean>;
  disabled_reason: string | null;
  fail_streak: Generated<number>;
  created: Generated<Date>;
  updated: Generated<Date>;
  /** Email channels: when the current value was confirmed (null: awaiting confirmation). */
  verified_at: Date | null;
  /** The pending confirmation link's SHA-256, its expiry and when it was mailed. */
  confirm_token_hash: string | null;
  confirm_expires_at: Date | null;
  confirm_sent_at: Date | null;
}

export interface MonitorSegmentsTable {
  segment_id: string;
  well_name: string;
  records: ColumnType<string, number | string | undefined, number | string>;
  published_at: Generated<Date>;
  status: Generated<'pending' | 'matched' | 'baseline'>;
  matched_at: NullableTimestamp;
  tasks_matched: Generated<number>;
}

export interface MonitorReportsTable {
  id: Generated<string>;
  user_id: string;
  segment_id: string;
  well_name: string;
  results: number;
  created: Generated<Date>;
}

export interface MonitorReportTasksTable {
  report_id: string;
  task_id: string | null;
  task_kind: TaskKind;
  task_value: string;
  results_count: number;
  record_ids: string[];
}

/** Proof of control of a domain, per account (migration 0008; docs/monitoring.md "Domain verification"). */
export interface DomainVerificationsTable {
  id: Generated<string>;
  user_id: string;
  domain: string;
  token: string;
  method: 'dns' | 'file' | 'email' | 'operator' | null;
  verified_at: Date | null;
  checked_at: Date | null;
  mail_address: string | null;
  mail_token_hash: string | null;
  mail_expires_at: Date | null;
  created: Generated<Date>;
}

export interface AuditLogTable {
  id: Generated<string>;
  at: Generated<Date>;
  operator: string;
  action: string;
  target: string | null;
  reason: string | null;
  details: ColumnType<Record<string, unknown>, string | undefined, never>;
}

export interface DeliveriesTable {
  id: Generated<string>;
  user_id: string;
  report_id: string;
  channel_id: string | null;
  kind: ChannelKind;
  target: string;
  status: Generated<'pending' | 'sent' | 'dead'>;
  attempts: Generated<number>;
  last_error: string | null;
  created: Generated<Date>;
  sent_at: NullableTimestamp;
}

export interface DeliveryAttemptsTable {
  delivery_id: string;
  n: number;
  at: Generated<Date>;
  http_status: number | null;
  ms: number | null;
  error: string | null;
}

export interface SmsOutboxTable {
  id: Generated<string>;
  to_number: string;
  body: string;
  provider: string;
  provider_id: string | null;
  status: Generated<string>;
  created: Generated<Date>;
  updated: Generated<Date>;
}

export interface WhoisSnapshotsTable {
  id: Generated<string>;
  domain: string;
  observed_at: Timestamp;
  last_observed_at: Timestamp;
  source: string;
  record: ColumnType<unknown, string, string>;
  registrar_name: string | null;
  created_date: NullableTimestamp;
  updated_date: NullableTimestamp;
  expires_date: NullableTimestamp;
  search_text: string;
  content_sha256: Buffer;
  is_current: Generated<boolean>;
}

export interface PdnsTable {
  rrname_rev: string;
  rrtype: string;
  rdata: string;
  first_seen: Timestamp;
  last_seen: Timestamp;
  count: ColumnType<string, number | string | bigint | undefined, number | string | bigint>;
  source: string;
}

export interface SubdomainsTable {
  name_rev: string;
  first_seen: Timestamp;
  last_seen: Timestamp;
  sources: Generated<string[]>;
}

export interface WhoisIngestFilesTable {
  sha256: string;
  format: string;
  name: string;
  rows: ColumnType<string, number | string | bigint, number | string | bigint>;
  imported_at: Generated<Date>;
}

export interface WhoisCacheTable {
  tool: string;
  key: string;
  answer: ColumnType<unknown, string, string>;
  source: string;
  fetched_at: Timestamp;
  expires_at: Timestamp;
}

export interface WhoisHoldsTable {
  id: Generated<string>;
  user_id: string;
  tool: string;
  cost: number;
  status: Generated<'held' | 'captured' | 'refunded'>;
  created_at: Generated<Date>;
  settled_at: NullableTimestamp;
}

export interface Database {
  app_secrets: AppSecretsTable;
  users: UsersTable;
  one_time_tokens: OneTimeTokensTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  login_known_ips: LoginKnownIpsTable;
  sign_in_history: SignInHistoryTable;
  outbox: OutboxTable;
  notifications: NotificationsTable;
  search_counts: SearchCountsTable;
  data_wells: DataWellsTable;
  credit_ledger: CreditLedgerTable;
  products: ProductsTable;
  payments: PaymentsTable;
  payment_events: PaymentEventsTable;
  subscriptions: SubscriptionsTable;
  subscription_domains: SubscriptionDomainsTable;
  invoices: InvoicesTable;
  event_codes: EventCodesTable;
  event_code_redemptions: EventCodeRedemptionsTable;
  marketing_banners: MarketingBannersTable;
  monitor_tasks: MonitorTasksTable;
  notification_channels: NotificationChannelsTable;
  monitor_segments: MonitorSegmentsTable;
  monitor_reports: MonitorReportsTable;
  monitor_report_tasks: MonitorReportTasksTable;
  domain_verifications: DomainVerificationsTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  sms_outbox: SmsOutboxTable;
  whois_snapshots: WhoisSnapshotsTable;
  pdns: PdnsTable;
  subdomains: SubdomainsTable;
  whois_ingest_files: WhoisIngestFilesTable;
  whois_cache: WhoisCacheTable;
  whois_holds: WhoisHoldsTable;
  audit_log: AuditLogTable;
  recovery_codes: RecoveryCodesTable;
  passkeys: PasskeysTable;
}
