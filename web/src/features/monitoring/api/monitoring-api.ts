/**
 * The monitoring calls of spec 3 §7 with the shapes of server/src/monitoring/README.md:
 * tier and usage, tasks, notification channels and reports. Values are the user's own or,
 * in report entries, breach data: attacker-controlled text, rendered as text only.
 */
import type { ChannelKind, MonitoringTier, TaskKind } from '@common/monitoring-rules';
import { api } from '@/lib/api';
import type { SearchRecord } from '@/features/search/api/search-api';

export interface MonitoringInfo {
  tier: MonitoringTier;
  max_notification_channels: number;
  active_notification_channels: number;
  max_webhooks: number;
  active_webhooks: number;
  max_standard_tasks: number;
  active_standard_tasks: number;
  max_domain_tasks: number;
  active_domain_tasks: number;
  is_enterprise: boolean;
  elevated: boolean;
  sms_available: boolean;
}

export interface MonitorTask {
  id: string;
  key: TaskKind;
  value: string;
  created: string;
  updated: string;
  active: boolean;
}

export interface TasksPage {
  tasks: MonitorTask[];
  total: number;
  page: number;
  next_page: number | null;
}

export interface NotificationChannel {
  id: string;
  key: ChannelKind;
  /** '' for a disabled channel. */
  value: string;
  created: string;
  updated: string;
  active: boolean;
  secret_hint?: string | null;
  disabled_reason?: string | null;
}

/** One kind of GET /notification-channels/info: its newest channel; null when the tier lacks the kind. */
export interface ChannelInfo {
  available: boolean;
  value: string | null;
  id: string | null;
  updated: string | null;
}

export type ChannelsInfo = Record<ChannelKind, ChannelInfo | null>;

export interface ReportTaskSummary {
  key: TaskKind;
  value: string;
  results_count: number;
}

export interface ReportSummary {
  id: string;
  results: number;
  created: string;
  database_name: string;
  tasks: ReportTaskSummary[];
}

export interface ReportRecord {
  task_type: TaskKind;
  task_value: string;
  key: string;
  value: string;
  results_count: number;
  data: SearchRecord[];
}

export interface Report {
  id: string;
  created: string;
  database_name: string;
  results: number;
  records: ReportRecord[];
}

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

/** An empty value disables the channel (spec 3 §2 Disable). */
export function updateChannel(id: string, key: ChannelKind, value: string) {
  return api.post<{ success: boolean; channel: NotificationChannel }>('/notification-channels/update', { id, key, value });
}

export function deleteChannels(ids: string[]) {
  return api.post<{ success: boolean }>('/notification-channels/delete', { ids });
}

export function getReports(page: number, pageSize: number) {
  return api.post<{ reports: ReportSummary[]; total_reports: number }>('/monitoring/reports/get-reports', { page, page_size: pageSize });
}

export function getReport(id: string) {
  return api.post<Report>('/monitoring/reports/get-report', { id });
}
