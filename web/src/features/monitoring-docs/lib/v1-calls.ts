/**
 * The Monitor API V1 as documented on /monitoring/documentation (docs/monitoring.md
 * "Monitor API V1"): all POST under /monitor-api/v1 with
 * the API key as a bearer token. Method, path and fields come from the route schemas
 * (lib/api-reference.ts); here are the prose, the samples' bodies and the documented answers.
 * server/test/dashboard/monitoring-docs-samples.test.ts runs the samples made from these
 * against a server. No React here.
 */
import { documentedCall } from '../../../lib/api-reference';
import type { DocCall } from './v2-calls';
import { SAMPLE_REPORT_ID, SAMPLE_TASK_ID } from './v2-calls';

export const V1_BASE = '/monitor-api/v1';

/** 5 requests a second, bursts of 50, then a 3-minute block. */
export const V1_LIMITS = { perSecond: 5, burst: 50, blockMinutes: 3 };

/** The V1 error statuses (the messages word for word). */
export const V1_ERRORS: [status: string, meaning: string, when: string][] = [
  ['302', 'Invalid or missing query', 'A required field is missing or a value is refused (the error says which), or your plan’s maximum is reached.'],
  ['401', 'Invalid API credentials.', 'The Authorization header is missing, or its key is not your current key.'],
  ['404', 'Method not allowed.', 'The path is not one of the calls below, or an id you sent is not one of yours (a task, domain task, notification method or breach): the same answer for both.'],
  ['429', 'Too Many Requests.', `More than ${V1_LIMITS.perSecond} requests a second beyond a burst of ${V1_LIMITS.burst}: every call is refused for ${V1_LIMITS.blockMinutes} minutes (Retry-After gives the seconds).`],
];

/** The monitoring rules as the V1 documentation states them. */
export const V1_RULES = [
  'A name task’s value has letters and spaces only, 10 to 48 characters.',
  'The API key is lower-case hexadecimal, as generated.',
  'Domain monitoring (domain_task) is for Enterprise accounts, or fills a Domain Monitoring slot you bought.',
  'Other values follow the dashboard’s rules: at most 256 characters; usernames 4 to 64 characters; phones 4 to 15 digits, no spaces, dashes or country code; webhooks http or https URLs.',
];

const SUCCESS = { success: true };
const TIME = '2025-04-23T10:15:00.000Z';

export const V1_CALLS: DocCall[] = [
  documentedCall('monitorV1Create', {
    id: 'v1-create',
    title: 'Create',
    body: { create_type: 'task', key: 'email', value: 'name@example.com' },
    // The kind may come as create_type or type (an alias): one is needed, and key but for a domain.
    fields: [['create_type', 'required'], ['key', 'required'], 'value'],
    description:
      'Adds a task, a notification method or a domain task; the answer gives its id. A new webhook notification method also answers its signing secret (secret, starting whsec_), this once.',
    response: { success: true, id: SAMPLE_TASK_ID },
  }),
  documentedCall('monitorV1Update', {
    id: 'v1-update',
    title: 'Update',
    body: { id: SAMPLE_TASK_ID, update_type: 'task', task_status: 'pause' },
    fields: ['id', 'update_type', ['task_status', 'or value'], ['value', 'or task_status']],
    description:
      'Pauses, resumes or deletes a task or domain task, or gives it a new value. A notification method takes a new value (empty disables it) or task_status delete.',
    response: SUCCESS,
  }),
  documentedCall('monitorV1Delete', {
    id: 'v1-delete',
    title: 'Delete',
    body: { delete_type: 'task', id: SAMPLE_TASK_ID },
    description: 'Removes a task, a notification method or a domain task (a Domain Monitoring slot is emptied and stays yours).',
    response: SUCCESS,
  }),
  documentedCall('monitorV1GetUserInfo', {
    id: 'v1-get-user-info',
    title: 'Get User Info',
    body: { type: 'tasks' },
    description:
      'Lists your tasks, domain tasks or notification methods, with how many you have and your plan’s maximum. Domain tasks: { id, domain, status, updated } (domain null until a slot is set); notification methods: { id, key, value, active, created, updated }, a webhook with secret_hint (the secret’s last 4 characters), and max_webhooks beside max.',
    response: {
      type: 'tasks',
      tasks: [{ id: SAMPLE_TASK_ID, key: 'email', value: 'name@example.com', status: 'active', created: TIME, updated: TIME }],
      total: 1,
      max: 10,
    },
  }),
  documentedCall('monitorV1GetBreaches', {
    id: 'v1-get-breaches',
    title: 'Get Breaches',
    body: { page: 1 },
    description:
      'A breach is one of your reports: a newly published data well that held watched values, with the tasks it matched. Newest first, 20 a page; next_page is null on the last page.',
    response: {
      breaches: [
        {
          breach_id: SAMPLE_REPORT_ID,
          database_name: 'Example Breach 2021',
          results: 1,
          created: '2025-04-23T11:02:41.000Z',
          tasks: [{ key: 'email', value: 'name@example.com', results_count: 1 }],
        },
      ],
      next_page: null,
    },
  }),
  documentedCall('monitorV1GetBreachEntries', {
    id: 'v1-get-breach-entries',
    title: 'Get Breach Entries',
    body: { breach_id: SAMPLE_REPORT_ID, page: 1 },
    description:
      'The entries of one breach, 100 a page, each with the task it matched (task_type, task_value) and the search API’s entry fields; empty fields are left out. Without search access values_hidden is true and no entries are given; a domain task whose domain is not verified gives none either, its domain listed in unverified_domains (present only then).',
    response: {
      page: 1,
      next_page: null,
      total: 1,
      values_hidden: false,
      entries: [
        {
          task_type: 'email',
          task_value: 'name@example.com',
          id: '4f1c2a9e0b7d',
          email: ['name@example.com'],
          username: ['name'],
          password: ['hunter2'],
          database_name: 'Example Breach 2021',
        },
      ],
    },
  }),
];

/** What a V1 webhook receives: breach_id names the breach (id repeats it for v2 clients). */
export const V1_WEBHOOK_PAYLOAD = { breach_id: SAMPLE_REPORT_ID, id: SAMPLE_REPORT_ID, type: 'report', timestamp: '2025-04-23T11:02:41.000Z' };
