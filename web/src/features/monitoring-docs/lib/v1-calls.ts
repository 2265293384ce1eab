/**
 * The Monitor API V1 as documented on /monitoring/documentation (spec 3 §7, §8, §9;
 * server/src/monitoring/README.md "Monitor API V1"): all POST under /monitor-api/v1 with
 * the API key as a bearer token. server/test/monitoring-docs-samples.test.ts runs the
 * samples made from these against a server. No React here.
 */
import type { DocCall } from './v2-calls';
import { SAMPLE_REPORT_ID, SAMPLE_TASK_ID } from './v2-calls';

export const V1_BASE = '/monitor-api/v1';
const path = (name: string) => `${V1_BASE}/${name}`;

/** Spec 3 §9: 5 requests a second, bursts of 50, then a 3-minute block. */
export const V1_LIMITS = { perSecond: 5, burst: 50, blockMinutes: 3 };

/** Spec 3 §8, word for word. */
export const V1_ERRORS: [status: string, meaning: string, when: string][] = [
  ['302', 'Invalid or missing query', 'A required field is missing or has a value the call does not accept.'],
  ['401', 'Invalid API credentials.', 'The Authorization header is missing, or its key is not your current key.'],
  ['404', 'Method not allowed', 'The path is not one of the calls below, or the method is not POST.'],
  ['429', 'Too Many Requests.', `More than ${V1_LIMITS.perSecond} requests a second beyond a burst of ${V1_LIMITS.burst}: every call is refused for ${V1_LIMITS.blockMinutes} minutes.`],
];

/** Spec 3 §5, "Monitor rules documented". */
export const V1_RULES = [
  'A name task’s value has letters and spaces only, 10 to 48 characters.',
  'The API key is sent in lower case, as it was generated.',
  'Domain monitoring (domain_task) is for Enterprise accounts only.',
];

const SUCCESS = { success: true };
const ENTRY = {
  id: '4f1c2a9e0b7d',
  email: ['name@example.com'],
  username: ['name'],
  password: ['hunter2'],
  database_name: 'Example Breach 2021',
};

export const V1_CALLS: DocCall[] = [
  {
    id: 'v1-create',
    title: 'Create',
    method: 'POST',
    path: path('create'),
    body: { create_type: 'task', key: 'email', value: 'name@example.com' },
    description: 'Adds a task, a notification method or (Enterprise) a domain task.',
    fields: [
      ['create_type', 'string', 'required', 'task, notification_method or domain_task.'],
      ['key', 'string', 'required', 'For a task: email, username, phone or name. For a notification method: email or webhook. For a domain task: domain.'],
      ['value', 'string', 'required', 'The value to watch, the address or URL to notify, or the domain (without a scheme).'],
    ],
    response: { success: true, id: SAMPLE_TASK_ID },
  },
  {
    id: 'v1-update',
    title: 'Update',
    method: 'POST',
    path: path('update'),
    body: { id: SAMPLE_TASK_ID, update_type: 'task_status', task_status: 'pause' },
    description: 'Pauses, resumes or deletes a task.',
    fields: [
      ['id', 'string', 'required', 'The task id.'],
      ['update_type', 'string', 'required', 'task_status.'],
      ['task_status', 'string', 'required', 'pause, resume or delete.'],
    ],
    response: SUCCESS,
  },
  {
    id: 'v1-delete',
    title: 'Delete',
    method: 'POST',
    path: path('delete'),
    body: { delete_type: 'task', id: SAMPLE_TASK_ID },
    description: 'Removes a task, a notification method or a domain task.',
    fields: [
      ['delete_type', 'string', 'required', 'task, notification_method or domain_task.'],
      ['id', 'string', 'required', 'Its id, from get-user-info.'],
    ],
    response: SUCCESS,
  },
  {
    id: 'v1-get-user-info',
    title: 'Get User Info',
    method: 'POST',
    path: path('get-user-info'),
    body: { type: 'tasks' },
    description: 'Lists your tasks, domain tasks or notification methods.',
    fields: [['type', 'string', 'required', 'tasks, domain_tasks or notification_methods.']],
    response: {
      tasks: [
        {
          id: SAMPLE_TASK_ID,
          key: 'email',
          value: 'name@example.com',
          task_status: 'active',
          created: '2025-04-23T10:15:00.000Z',
          updated: '2025-04-23T10:15:00.000Z',
        },
      ],
    },
  },
  {
    id: 'v1-get-breaches',
    title: 'Get Breaches',
    method: 'POST',
    path: path('get-breaches'),
    body: { page: 1 },
    description: 'A breach is one of your reports: the tasks a newly published data well matched. Newest first; next_page is null on the last page.',
    fields: [['page', 'integer', '1', 'Page number, from 1.']],
    response: {
      breaches: [{ breach_id: SAMPLE_REPORT_ID, database_name: 'Example Breach 2021', results: 1, created: '2025-04-23T11:02:41.000Z' }],
      next_page: null,
    },
  },
  {
    id: 'v1-get-breach-entries',
    title: 'Get Breach Entries',
    method: 'POST',
    path: path('get-breach-entries'),
    body: { breach_id: SAMPLE_REPORT_ID, page: 1 },
    description: 'The entries of one breach, in the search API’s entry shape; empty fields are left out.',
    fields: [
      ['breach_id', 'string', 'required', 'From get-breaches or from a webhook.'],
      ['page', 'integer', '1', 'Page number, from 1.'],
    ],
    response: { page: 1, next_page: null, entries: [ENTRY] },
  },
];

/** What a V1 webhook receives: breach_id names the breach (id repeats it for v2 clients). */
export const V1_WEBHOOK_PAYLOAD = { breach_id: SAMPLE_REPORT_ID, id: SAMPLE_REPORT_ID, type: 'report', timestamp: '2025-04-23T11:02:41.000Z' };
