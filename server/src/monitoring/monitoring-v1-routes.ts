/**
 * Monitoring's calls of the Monitor API V1 (docs/monitoring.md "Monitor API V1"), registered
 * behind V1's guard with `app.monitorV1Routes` (monitor-api-v1/monitor-v1-plugin.ts: bearer
 * key, its own limits, V1's error codes). A missing or invalid field is V1's 302 with the
 * reason. Same services, rules and limits as the dashboard and /v2.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ErrorBody, Errors } from '../infra/errors';
import { REPORTS_PAGE_SIZE, STANDARD_TASK_KINDS, type StandardTaskKind } from '../common/monitoring-rules';
import type { ReportsService } from './reports-service';
import type { TaskRow } from './monitoring-repository';
import type { MonitoringService } from './monitoring-service';
import { awaitingConfirmation, channelActive, type ChannelsService } from './channels-service';
import { ApiEntry } from '../api-v2/v2-schemas';
import { invalidV1Field as invalid } from '../monitor-api-v1/monitor-v1-schemas';

/** V1's documented name rule: letters and spaces only, 10 to 48 characters. */
export const V1_NAME_PATTERN = /^[\p{L} ]{10,48}$/u;
export const V1_NAME_MESSAGE = 'name must be 10 to 48 letters and spaces';
export const V1_ENTRIES_PAGE_SIZE = 100;

const CreateType = Type.Union([Type.Literal('task'), Type.Literal('notification_method'), Type.Literal('domain_task')], {
  description: 'task, notification_method or domain_task.',
});
const Id = Type.Union([Type.String({ maxLength: 64 }), Type.Integer()], { description: 'Its id, from create or get-user-info.' });
const Value = (description: string) => Type.String({ maxLength: 4096, description });
const Page = Type.Integer({ minimum: 1, maximum: 100_000, description: 'Page number, from 1.' });
const Status = Type.Union([Type.Literal('active'), Type.Literal('paused')]);
const Time = Type.String({ format: 'date-time' });
const Success = Type.Object({ success: Type.Literal(true) });

function status(active: boolean): 'active' | 'paused' {
  return active ? 'active' : 'paused';
}

function v1Task(row: TaskRow) {
  return { id: String(row.id), key: row.kind, value: row.value, status: status(row.active), created: row.created.toISOString(), updated: row.updated.toISOString() };
}

function standardKind(key: string | undefined): StandardTaskKind {
  const kind = STANDARD_TASK_KINDS.find((k) => k === key);
  if (!kind) throw invalid('key must be one of email, username, phone, name');
  return kind;
}

/** V1's own rule for names, on top of the shared rules. */
function checkV1Value(kind: string, value: string): void {
  if (kind === 'name' && !V1_NAME_PATTERN.test(value.trim())) throw invalid(V1_NAME_MESSAGE);
}

/** Register with `app.monitorV1Routes` (paths relative to /monitor-api/v1). */
export function registerMonitoringV1Routes(app: FastifyInstance, deps: { tasks: MonitoringService; channels: ChannelsService; reports: ReportsService }) {
  const { tasks, channels } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['monitor api v1'];
  const security = [{ bearer: [] }];
  const errors = { 302: ErrorBody, 401: ErrorBody, 404: ErrorBody, 429: ErrorBody };

  r.post(
    '/create',
    {
      schema: {
        operationId: 'monitorV1Create',
        tags,
        security,
        summary:
          "Creates a task (key email, username, phone or name), a notification_method (key email, sms, webhook) or a domain_task (value a host name). The kind goes in `create_type` (or `type`). A webhook's signing secret is answered once, in `secret`.",
        body: Type.Object(
          {
            create_type: Type.Optional(CreateType),
            type: Type.Optional(CreateType),
            key: Type.Optional(
              Type.String({
                maxLength: 32,
                description: 'A task: email, username, phone or name. A notification method: email, sms or webhook. A domain task: domain (or leave it out).',
              }),
            ),
            value: Value('The value to watch, the address, phone number or URL to notify, or the domain (a host name, no scheme).'),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ success: Type.Literal(true), id: Type.String(), secret: Type.Optional(Type.String()) }), ...errors },
      },
    },
    async (request) => {
      const userId = request.monitorV1UserId;
      const { key, value } = request.body;
      const kind = request.body.create_type ?? request.body.type;
      if (!kind) throw invalid('create_type must be task, notification_method or domain_task');
      if (kind === 'task') {
        const taskKind = standardKind(key);
        checkV1Value(taskKind, value);
        return { success: true as const, id: String((await tasks.addTask(userId, taskKind, value)).id) };
      }
      if (kind === 'domain_task') {
        if (key !== undefined && key !== 'domain') throw invalid('key of a domain_task is domain');
        return { success: true as const, id: String((await tasks.setDomain(userId, undefined, value)).task.id) };
      }
      if (key === undefined) throw invalid('key must be one of email, sms, webhook');
      const { channel, secret } = await channels.add(userId, key, value);
      return { success: true as const, id: String(channel.id), ...(secret ? { secret } : {}) };
    },
  );

  r.post(
    '/update',
    {
      schema: {
        operationId: 'monitorV1Update',
        tags,
        security,
        summary:
          "Updates a task or domain_task (`task_status` pause, resume or delete; or a new `value`) or a notification_method (a new `value`; '' disables it; `task_status` delete deletes it). An id that is not the caller's: 404.",
        body: Type.Object(
          {
            id: Id,
            update_type: CreateType,
            task_status: Type.Optional(Type.Union([Type.Literal('pause'), Type.Literal('resume'), Type.Literal('delete')], { description: 'pause, resume or delete.' })),
            value: Type.Optional(Value('The new value, checked as on create.')),
          },
          { additionalProperties: false },
        ),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      const userId = request.monitorV1UserId;
      const { id, update_type, task_status, value } = request.body;
      if (task_status === undefined && value === undefined) throw invalid('task_status or value is required');
      if (update_type === 'notification_method') {
        await channels.get(userId, id);
        if (task_status === 'delete') await channels.remove(userId, [id]);
        else if (task_status !== undefined) throw invalid('task_status of a notification_method is delete');
        else await channels.update(userId, id, undefined, value!);
        return { success: true as const };
      }
      const row = await tasks.getTask(userId, id);
      // A task id given as a domain_task (or the other way round) is not found as such.
      if ((row.kind === 'domain') !== (update_type === 'domain_task')) throw Errors.notFound('Task not found');
      if (task_status === 'delete') {
        await tasks.deleteTasks(userId, [id]);
        return { success: true as const };
      }
      if (value !== undefined) checkV1Value(row.kind, value);
      if (value !== undefined && row.kind === 'domain') await tasks.updateDomain(userId, id, value);
      const active = task_status === undefined ? undefined : task_status === 'resume';
      if (active !== undefined || (value !== undefined && row.kind !== 'domain')) {
        await tasks.updateTask(userId, id, { value: row.kind === 'domain' ? undefined : value, active });
      }
      return { success: true as const };
    },
  );

  r.post(
    '/delete',
    {
      schema: {
        operationId: 'monitorV1Delete',
        tags,
        security,
        summary: "Deletes a task, domain_task (a domain slot is emptied and stays) or notification_method. An id that is not the caller's: 404.",
        body: Type.Object({ delete_type: CreateType, id: Id }, { additionalProperties: false }),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      const userId = request.monitorV1UserId;
      const { delete_type, id } = request.body;
      if (delete_type === 'notification_method') await channels.remove(userId, [id]);
      else if (delete_type === 'domain_task') await tasks.clearDomain(userId, id);
      else {
        const row = await tasks.getTask(userId, id);
        if (row.kind === 'domain') throw Errors.notFound('Task not found');
        await tasks.deleteTasks(userId, [id]);
      }
      return { success: true as const };
    },
  );

  const V1Task = Type.Object({ id: Type.String(), key: Type.String(), value: Type.String(), status: Status, created: Time, updated: Time });
  const V1Domain = Type.Object({ id: Type.String(), domain: Type.Union([Type.String(), Type.Null()]), status: Status, updated: Time });
  const V1Method = Type.Object({
    id: Type.String(),
    key: Type.String({ description: 'email, sms or webhook' }),
    value: Type.String(),
    active: Type.Boolean(),
    awaiting_confirmation: Type.Boolean({ description: 'An email address not confirmed yet: it gets no alert until its owner follows the mailed link.' }),
    created: Time,
    updated: Time,
    secret_hint: Type.Optional(Type.String()),
  });

  r.post(
    '/get-user-info',
    {
      schema: {
        operationId: 'monitorV1GetUserInfo',
        tags,
        security,
        summary:
          "The caller's tasks (type tasks), domains (domain_tasks: each slot of a current domain subscription, and each enterprise domain task) or notification methods (notification_methods), with the tier's maximum.",
        body: Type.Object(
          { type: Type.Union([Type.Literal('tasks'), Type.Literal('domain_tasks'), Type.Literal('notification_methods')], { description: 'tasks, domain_tasks or notification_methods.' }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            type: Type.String(),
            tasks: Type.Optional(Type.Array(V1Task)),
            domain_tasks: Type.Optional(Type.Array(V1Domain)),
            notification_methods: Type.Optional(Type.Array(V1Method)),
            total: Type.Integer(),
            max: Type.Integer({ description: 'tasks: max tasks; domain_tasks: max domain tasks; notification_methods: max email and SMS channels.' }),
            max_webhooks: Type.Optional(Type.Integer()),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const userId = request.monitorV1UserId;
      const info = await tasks.info(userId);
      switch (request.body.type) {
        case 'tasks': {
          const { rows, total } = await tasks.listTasks(userId, { kinds: STANDARD_TASK_KINDS, pageSize: 100_000 });
          return { type: 'tasks', tasks: rows.map(v1Task), total, max: info.max_standard_tasks };
        }
        case 'domain_tasks': {
          const domains = await tasks.listDomains(userId);
          return {
            type: 'domain_tasks',
            domain_tasks: domains.map((d) => ({ id: d.id, domain: d.domain, status: status(d.active), updated: d.updated.toISOString() })),
            total: domains.length,
            max: info.max_domain_tasks,
          };
        }
        case 'notification_methods': {
          const rows = await channels.list(userId);
          return {
            type: 'notification_methods',
            notification_methods: rows.map((row) => ({
              id: String(row.id),
              key: row.kind === 'phone' ? 'sms' : row.kind,
              value: row.value,
              active: channelActive(row),
              awaiting_confirmation: awaitingConfirmation(row),
              created: row.created.toISOString(),
              updated: row.updated.toISOString(),
              ...(row.secret ? { secret_hint: row.secret.slice(-4) } : {}),
            })),
            total: rows.length,
            max: info.max_notification_channels,
            max_webhooks: info.max_webhooks,
          };
        }
      }
    },
  );

  r.post(
    '/get-breaches',
    {
      schema: {
        operationId: 'monitorV1GetBreaches',
        tags,
        security,
        summary: `The caller's breaches (monitoring reports: breach_id is the report id), newest first, ${REPORTS_PAGE_SIZE} a page; next_page is null on the last page.`,
        body: Type.Object({ page: Type.Optional(Page) }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            breaches: Type.Array(
              Type.Object({
                breach_id: Type.String(),
                database_name: Type.String(),
                results: Type.Integer(),
                created: Time,
                tasks: Type.Array(Type.Object({ key: Type.String(), value: Type.String(), results_count: Type.Integer() })),
              }),
            ),
            next_page: Type.Union([Type.Integer(), Type.Null()]),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const page = request.body.page ?? 1;
      const { reports, total_reports } = await deps.reports.listReports(request.monitorV1UserId, page, REPORTS_PAGE_SIZE);
      return {
        breaches: reports.map((report) => ({
          breach_id: report.id,
          database_name: report.database_name,
          results: report.results,
          created: report.created,
          tasks: report.tasks,
        })),
        next_page: page * REPORTS_PAGE_SIZE < total_reports ? page + 1 : null,
      };
    },
  );

  r.post(
    '/get-breach-entries',
    {
      schema: {
        operationId: 'monitorV1GetBreachEntries',
        tags,
        security,
        summary: `The entries of one breach (report), ${V1_ENTRIES_PAGE_SIZE} a page, each with the task it matched (task_type, task_value) and the public API entry fields; without search access values_hidden is true and no entries are shown; a domain task whose domain is not verified shows none either (its domain in unverified_domains). A breach that is not the caller's: 404.`,
        body: Type.Object(
          { breach_id: Type.String({ maxLength: 64, description: 'From get-breaches or from a webhook.' }), page: Type.Optional(Page) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            page: Type.Integer(),
            next_page: Type.Union([Type.Integer(), Type.Null()]),
            total: Type.Integer(),
            values_hidden: Type.Boolean(),
            unverified_domains: Type.Optional(Type.Array(Type.String(), { description: 'Present when some: domain tasks of this breach whose domain is not verified, their entries not shown.' })),
            entries: Type.Array(Type.Object({ task_type: Type.String(), task_value: Type.String(), ...ApiEntry.properties })),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const page = request.body.page ?? 1;
      const report = await deps.reports.getReport(request.monitorV1UserId, request.body.breach_id, 'api');
      const all = report.tasks.flatMap((task) => task.entries.map((entry) => ({ task_type: task.key, task_value: task.value, ...entry })));
      const start = (page - 1) * V1_ENTRIES_PAGE_SIZE;
      const unverified = report.tasks.filter((task) => task.domain_unverified).map((task) => task.value);
      return {
        page,
        next_page: start + V1_ENTRIES_PAGE_SIZE < all.length ? page + 1 : null,
        total: all.length,
        values_hidden: report.values_hidden,
        ...(unverified.length > 0 ? { unverified_domains: unverified } : {}),
        entries: all.slice(start, start + V1_ENTRIES_PAGE_SIZE),
      };
    },
  );
}
