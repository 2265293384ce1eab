/**
 * The public API v2's monitoring calls as documented on /documentation/api and
 * /monitoring/documentation-v2 (shapes: docs/monitoring.md, after
 * DeHashed v2). Method, path and fields come from the route schemas (lib/api-reference.ts).
 * Each call's body is the sample's body; each response is the documented answer. server/test/dashboard/monitoring-docs-samples.test.ts runs the samples made from these
 * against a server and checks every answer has the documented shape. No React here.
 */
import type { DocCall } from '../../../lib/api-samples';
import { documentedCall } from '../../../lib/api-reference';

export type { DocCall, FieldRow } from '../../../lib/api-samples';

export interface DocGroup {
  id: string;
  title: string;
  intro: string;
  calls: DocCall[];
}

export const V2_MONITORING_BASE = '/v2/monitoring';

const SUCCESS = { success: true };
export const SAMPLE_TASK_ID = '1024';
export const SAMPLE_REPORT_ID = '58211';
export const SAMPLE_DOMAIN_ID = '3f6c1d2e-8b4a-4c7e-9f10-2a5b7c9d1e43';

const ENTRY = {
  id: '4f1c2a9e0b7d',
  email: ['name@example.com'],
  username: ['name'],
  password: ['hunter2'],
  database_name: 'Example Breach 2021',
};

export const V2_GROUPS: DocGroup[] = [
  {
    id: 'monitoring-tasks',
    title: 'Tasks',
    intro:
      'A task watches one value. Every new data well is matched against your active tasks as it is published; a match makes a report. Task types: email, username, phone and name (domains have their own calls). How many tasks you may keep depends on your plan: max in the get-tasks answer.',
    calls: [
      documentedCall('v2MonitoringCreateTask', {
        id: 'v2-create-task',
        title: 'Create Task',
        body: { type: 'email', value: 'name@example.com' },
        description: 'Start watching a value. The answer gives the new task’s id. A value you already watch (the same email in other capitals too) is refused.',
        response: { success: true, id: SAMPLE_TASK_ID },
      }),
      documentedCall('v2MonitoringGetTasks', {
        id: 'v2-get-tasks',
        title: 'List Tasks',
        body: { page: 1 },
        description:
          'Your email, username, phone and name tasks, oldest first, 100 a page. total, active and inactive count them all; max is your plan’s task limit; next_page is the next page number, or null on the last page.',
        response: {
          tasks: [
            {
              id: SAMPLE_TASK_ID,
              type: 'email',
              value: 'name@example.com',
              active: true,
              created: '2025-04-23T10:15:00.000Z',
              updated: '2025-04-23T10:15:00.000Z',
            },
          ],
          total: 1,
          active: 1,
          inactive: 0,
          max: 10,
          next_page: null,
        },
      }),
      documentedCall('v2MonitoringGetTask', {
        id: 'v2-get-task',
        title: 'Get Task',
        body: { id: SAMPLE_TASK_ID },
        description: 'One task by id. An id that is not one of your tasks answers 404.',
        response: {
          id: SAMPLE_TASK_ID,
          type: 'email',
          value: 'name@example.com',
          active: true,
          created: '2025-04-23T10:15:00.000Z',
          updated: '2025-04-23T10:15:00.000Z',
        },
      }),
      documentedCall('v2MonitoringUpdateTask', {
        id: 'v2-update-task',
        title: 'Update Task',
        body: { id: SAMPLE_TASK_ID, active: false },
        description: 'Change a task’s type or value, or pause (active false) and resume (active true) it. A paused task matches nothing.',
        response: SUCCESS,
      }),
      documentedCall('v2MonitoringDeleteTask', {
        id: 'v2-delete-task',
        title: 'Delete Task',
        body: { id: SAMPLE_TASK_ID },
        description: 'Stop watching a value and free its place. Reports already made are kept.',
        response: SUCCESS,
      }),
    ],
  },
  {
    id: 'monitoring-reports',
    title: 'Reports',
    intro:
      'A report is made when a newly published data well holds one of your watched values: one report per data well, listing every task it matched. Reports cost no credits.',
    calls: [
      documentedCall('v2MonitoringGetReports', {
        id: 'v2-get-reports',
        title: 'List Reports',
        body: { page: 1 },
        description: 'Your reports, newest first. next_page is the next page number, or null on the last page.',
        response: { reports: [{ id: SAMPLE_REPORT_ID, timestamp: '2025-04-23T11:02:41.000Z' }], next_page: null },
      }),
      documentedCall('v2MonitoringGetReport', {
        id: 'v2-get-report',
        title: 'Get Report',
        body: { id: SAMPLE_REPORT_ID },
        description:
          'One report: per matched task, how many records matched (results_count) and the entries themselves (the first 1,000), in the search API’s entry shape. Empty fields are left out; an entry removed since is not shown. The entries need search access (without it results is empty and the counts stay); a domain task’s need its domain verified on the monitoring tasks screen (until then results is empty and domain_unverified is true); a task deleted since has no id.',
        response: {
          tasks: [
            {
              id: SAMPLE_TASK_ID,
              key: 'email',
              value: 'name@example.com',
              results_count: 1,
              timestamp: '2025-04-23T11:02:41.000Z',
              results: [ENTRY],
            },
          ],
        },
      }),
    ],
  },
  {
    id: 'monitoring-channels',
    title: 'Notification Channels',
    intro:
      'Where alerts go besides your inbox: email and webhook (SMS alerts, where your plan has them, are set up on the dashboard). Webhooks need a Domain Monitoring or Enterprise plan; how many channels you may keep depends on your plan.',
    calls: [
      documentedCall('v2MonitoringGetChannels', {
        id: 'v2-get-channels',
        title: 'List Channels',
        description:
          'Your channels, newest first. A disabled channel has an empty value. awaiting_confirmation: an email address that has not followed the confirmation link mailed to it yet gets no alert.',
        response: {
          channels: [
            { id: '301', type: 'email', value: 'alerts@example.com', updated_at: '2025-04-23T10:20:00.000Z', awaiting_confirmation: false },
            { id: '302', type: 'webhook', value: 'https://hooks.example.com/leaks', updated_at: '2025-04-23T10:21:00.000Z', awaiting_confirmation: false },
          ],
        },
      }),
      documentedCall('v2MonitoringUpdateChannel', {
        id: 'v2-update-channel',
        title: 'Set Channel',
        body: { type: 'email', value: 'alerts@example.com' },
        description:
          'Sets your newest channel of that type, or adds one if you have none; an empty value disables it. A webhook URL must be http or https and reach the public internet. When this call adds a webhook channel, the answer carries its signing secret (secret, starting whsec_) this once: store it to verify deliveries.',
        response: SUCCESS,
      }),
      documentedCall('v2MonitoringDeleteChannel', {
        id: 'v2-delete-channel',
        title: 'Delete Channel',
        body: { channel: 'email' },
        description: 'Removes one channel by its id, or every channel of a type.',
        response: SUCCESS,
      }),
    ],
  },
  {
    id: 'monitoring-domains',
    title: 'Domains',
    intro:
      'A watched domain is matched in email addresses and URLs, subdomains included. Each Domain Monitoring subscription is one slot for a domain (buy slots on the Monitoring plans page); Enterprise accounts also add domains of their own.',
    calls: [
      documentedCall('v2MonitoringGetDomains', {
        id: 'v2-get-domains',
        title: 'List Domains',
        description: 'Your domain slots (domain null until one is set) and, for Enterprise accounts, the domains added.',
        response: {
          domains: [
            { id: SAMPLE_DOMAIN_ID, domain: 'example.com', updated: '2025-04-23T10:30:00.000Z' },
            { id: '3f6c1d2e-0000-4c7e-9f10-2a5b7c9d1e44', domain: null, updated: '2025-04-23T10:30:00.000Z' },
          ],
        },
      }),
      documentedCall('v2MonitoringUpdateDomain', {
        id: 'v2-update-domain',
        title: 'Set Domain',
        body: { id: SAMPLE_DOMAIN_ID, domain: 'example.com' },
        description:
          'Sets the domain of a slot, written without a scheme or path: example.com, not https://example.com/. Without an id, the first empty slot is used, or (Enterprise) a domain is added.',
        response: SUCCESS,
      }),
      documentedCall('v2MonitoringClearDomain', {
        id: 'v2-clear-domain',
        title: 'Clear Domain',
        body: { id: SAMPLE_DOMAIN_ID },
        description: 'Stops watching a domain. A slot is emptied and stays yours, to be set again; a domain an Enterprise account added is deleted.',
        response: SUCCESS,
      }),
    ],
  },
];

export const V2_CALLS: DocCall[] = V2_GROUPS.flatMap((group) => group.calls);

/** The body your webhook receives for each new report (the same on every retry). */
export const WEBHOOK_PAYLOAD = {
  id: SAMPLE_REPORT_ID,
  breach_id: SAMPLE_REPORT_ID,
  type: 'report',
  timestamp: '2025-04-23T11:02:41.000Z',
};

/** The Standard Webhooks retry schedule: the wait before each attempt. */
export const WEBHOOK_RETRY_SCHEDULE = ['at once', '5 seconds', '5 minutes', '30 minutes', '2 hours', '5 hours', '10 hours', '14 hours', '20 hours', '24 hours'];
