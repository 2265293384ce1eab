/**
 * The monitoring calls with the shapes of docs/monitoring.md:
 * tier and usage, tasks, notification channels and reports. Values are the user's own or,
 * in report entries, breach data: attacker-controlled text, rendered as text only.
 */
import type { ChannelKind, TaskKind } from '@common/monitoring-rules';
import type {
  ChannelsInfo,
  DomainCheckResult,
  DomainVerification,
  MonitoringInfo,
  MonitorTask,
  NotificationChannel,
  ReportsPage,
  Report as WireReport,
  ReportRecord as WireReportRecord,
  TasksPage,
} from '@common/monitoring-wire';
import { api } from '@/lib/api';
import type { SearchRecord } from '@/features/search';

export type {
  ChannelInfo,
  DomainCheckResult,
  DomainVerification,
  ChannelsInfo,
  MonitoringInfo,
  MonitorTask,
  NotificationChannel,
  ReportSummary,
  ReportTaskSummary,
  TasksPage,
} from '@common/monitoring-wire';
/** A task's records in a report; `data` holds dashboard search entries. */
export type ReportRecord = WireReportRecord<SearchRecord>;
export type Report = WireReport<SearchRecord>;

export function getMonitoringInfo() {
  return api.get<MonitoringInfo>('/monitoring/info');
}

export function getTasks(page = 1) {
  return api.post<TasksPage>('/monitoring/get-tasks', { active_only: false, page });
}

export function addTask(key: TaskKind, value: string) {
  return api.post<{ success: boolean; task: MonitorTask }>('/monitoring/add-task', { key, value });
}

export function updateTask(task: { id: string; key: TaskKind; value: string; active?: boolean }) {
  return api.post<{ success: boolean; task: MonitorTask }>('/monitoring/update-task', task);
}

export function deleteTasks(ids: string[]) {
  return api.post<{ success: boolean }>('/monitoring/delete-tasks', { ids });
}

/** Domain tasks: a paid slot's task is emptied (the slot stays), others are removed. */
export function clearDomains(ids: string[]) {
  return api.post<{ success: boolean }>('/monitoring/clear-domains', { ids });
}

export function getChannelsInfo() {
  return api.get<ChannelsInfo>('/notification-channels/info');
}

export function getChannels() {
  return api.post<{ notification_channels: NotificationChannel[] }>('/notification-channels/get', {});
}

/** A webhook's signing secret comes back once, here. */
export function addChannel(key: ChannelKind, value: string) {
  return api.post<{ success: boolean; channel: NotificationChannel; secret?: string }>('/notification-channels/add', { key, value });
}

/** An empty value disables the channel. */
export function updateChannel(id: string, key: ChannelKind, value: string) {
  return api.post<{ success: boolean; channel: NotificationChannel }>('/notification-channels/update', { id, key, value });
}

/** A new confirmation link for an email channel awaiting confirmation (429 within a minute of the last). */
export function resendChannelConfirmation(id: string) {
  return api.post<{ success: boolean; channel: NotificationChannel }>('/notification-channels/resend-confirmation', { id });
}

export function deleteChannels(ids: string[]) {
  return api.post<{ success: boolean }>('/notification-channels/delete', { ids });
}

export function getReports(page: number, pageSize: number) {
  return api.post<ReportsPage>('/monitoring/reports/get-reports', { page, page_size: pageSize });
}

export function getReport(id: string) {
  return api.post<Report>('/monitoring/reports/get-report', { id });
}

/** Verification state and instructions of each domain of the user's domain tasks. */
export function getDomainVerifications() {
  return api.post<{ domains: DomainVerification[] }>('/monitoring/domains/get', {});
}

/** "Check now": the TXT record, then the .well-known file (throttled: 429). */
export function checkDomain(domain: string) {
  return api.post<DomainCheckResult>('/monitoring/domains/check', { domain });
}

/** Mails a confirmation link to a role address (`security`, `admin`, …) of the domain. */
export function sendDomainMail(domain: string, address: string) {
  return api.post<{ success: boolean; domain: DomainVerification }>('/monitoring/domains/send-mail', { domain, address });
}
