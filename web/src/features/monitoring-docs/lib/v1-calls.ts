/**
 * The Monitor API V1 as documented on /monitoring/documentation (docs/monitoring.md
 * "Monitor API V1"): all POST under /monitor-api/v1 with
 * the API key as a bearer token. server/test/dashboard/monitoring-docs-samples.test.ts runs the
 * samples made from these against a server. No React here.
 */
import type { DocCall } from './v2-calls';
import { SAMPLE_REPORT_ID, SAMPLE_TASK_ID } from './v2-calls';

export const V1_BASE = '/monitor-api/v1';
const path = (name: string) => `${V1_BASE}/${name}`;

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
  {
    id: 'v1-create',
    title: 'Create',
    method: 'POST',
    path: path('create'),
    body: { create_type: 'task', key: 'email', value: 'name@example.com' },
    description:
      'Adds a task, a notification method or a domain task; the answer gives its id. A new webhook notification method also answers its signing secret (secret, starting whsec_), this once.',
    fields: [
      ['create_type', 'string', 'required', 'task, notification_method or domain_task.'],
      ['key', 'string', 'required', 'A task: email, username, phone or name. A notification method: email, sms or webhook. A domain task: domain (or leave it out).'],
      ['value', 'string', 'required', 'The value to watch, the address, phone number or URL to notify, or the domain (a host name, no scheme).'],
    ],
    response: { success: true, id: SAMPLE_TASK_ID },
  },
  {
    id: 'v1-update',
    title: 'Update',
    method: 'POST',
    path: path('update'),
    body: { id: SAMPLE_TASK_ID, update_type: 'task', task_status: 'pause' },
    description:
      'Pauses, resumes or deletes a task or domain task, or gives it a new value. A notification method takes a new value (empty disables it) or task_status delete.',
    fields: [
      ['id', 'string', 'required', 'Its id, from create or get-user-info.'],
      ['update_type', 'string', 'required', 'task, domain_task or notification_method.'],
      ['task_status', 'string', 'or value', 'pause, resume or delete.'],
      ['value', 'string', 'or task_status', 'The new value, checked as on create.'],
    ],
    response: SUCCESS,
  },
  {
    id: 'v1-delete',
    title: 'Delete',
    method: 'POST',
    path: path('delete'),
    body: { delete_type: 'task', id: SAMPLE_TASK_ID },
    description: 'Removes a task, a notification method or a domain task (a Domain Monitoring slot is emptied and stays yours).',
    fields: [
      ['delete_type', 'string', 'required', 'task, notification_method or domain_task.'],
      ['id', 'string', 'required', 'Its id, from create or get-user-info.'],
    ],
    response: SUCCESS,
  },
  {
    id: 'v1-get-user-info',
    title: 'Get User Info',
    method: 'POST',
    path: path('get-user-info'),
    body: { type: 'tasks' },
    description:
      'Lists your tasks, domain tasks or notification methods, with how many you have and your plan’s maximum. Domain tasks: { id, domain, status, updated } (domain null until a slot is set); notification methods: { id, key, value, active, created, updated }, a webhook with secret_hint (the secret’s last 4 characters), and max_webhooks beside max.',
    fields: [['type', 'string', 'required', 'tasks, domain_tasks or notification_methods.']],
    response: {
      type: 'tasks',
      tasks: [{ id: SAMPLE_TASK_ID, key: 'email', value: 'name@example.com', status: 'active', created: TIME, updated: TIME }],
      total: 1,
      max: 10,
    },
  },
  {
    id: 'v1-get-breaches',
    title: 'Get Breaches',
    method: 'POST',
    path: path('get-breaches'),
    body: { page: 1 },
    description:
      'A breach is one of your reports: a newly published data well that held watched values, with the tasks it matched. Newest first, 20 a page; next_page is null on the last page.',
    fields: [['page', 'integer', '1', 'Page number, from 1.']],
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
  },
  {
    id: 'v1-get-breach-entries',
    title: 'Get Breach Entries',
    method: 'POST',
    path: path('get-breach-entries'),
    body: { breach_id: SAMPLE_REPORT_ID, page: 1 },
    description:
      'The entries of one breach, 100 a page, each with the task it matched (task_type, task_value) and the search API’s entry fields; empty fields are left out. Without search access values_hidden is true and no entries are given; a domain task whose domain is not verified gives none either, its domain listed in unverified_domains (present only then).',
    fields: [
      ['breach_id', 'string', 'required', 'From get-breaches or from a webhook.'],
      ['page', 'integer', '1', 'Page number, from 1.'],
    ],
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
  },
];

/** What a V1 webhook receives: breach_id names the breach (id repeats it for v2 clients). */
export const V1_WEBHOOK_PAYLOAD = { breach_id: SAMPLE_REPORT_ID, id: SAMPLE_REPORT_ID, type: 'report', timestamp: '2025-04-23T11:02:41.000Z' };
