/**
 * Monitoring's reads of the Monitor API V1 (docs/monitoring.md "Monitor API V1"): the
 * caller's tasks, domains and notification methods, their breaches (monitoring reports)
 * and a breach's entries. Registered by registerMonitoringV1Routes, behind V1's guard.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { REPORTS_PAGE_SIZE, STANDARD_TASK_KINDS } from '../common/monitoring-rules';
import type { ReportsService } from './reports-service';
import type { TaskRow } from './monitoring-repository';
import type { MonitoringService } from './monitoring-service';
import { awaitingConfirmation, channelActive, type ChannelsService } from './channels-service';
import type { ChannelRow } from './channels-repository';
import { ApiEntry } from '../api-v2/v2-schemas';
import { v1Errors as errors, v1Security as security, v1Tags as tags } from './monitoring-v1-schemas';

export const V1_ENTRIES_PAGE_SIZE = 100;

const Status = Type.Union([Type.Literal('active'), Type.Literal('paused')]);
const Time = Type.String({ format: 'date-time' });
const Page = Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Page number, from 1.' }));

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

const UserInfo = Type.Object({
  type: Type.String(),
  tasks: Type.Optional(Type.Array(V1Task)),
  domain_tasks: Type.Optional(Type.Array(V1Domain)),
  notification_methods: Type.Optional(Type.Array(V1Method)),
  total: Type.Integer(),
  max: Type.Integer({ description: 'tasks: max tasks; domain_tasks: max domain tasks; notification_methods: max email and SMS channels.' }),
  max_webhooks: Type.Optional(Type.Integer()),
});

const Breaches = Type.Object({
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
});

const BreachEntries = Type.Object({
  page: Type.Integer(),
  next_page: Type.Union([Type.Integer(), Type.Null()]),
  total: Type.Integer(),
  values_hidden: Type.Boolean(),
  unverified_domains: Type.Optional(Type.Array(Type.String(), { description: 'Present when some: domain tasks of this breach whose domain is not verified, their entries not shown.' })),
  entries: Type.Array(Type.Object({ task_type: Type.String(), task_value: Type.String(), ...ApiEntry.properties })),
});

type V1ReadDeps = { tasks: MonitoringService; channels: ChannelsService; reports: ReportsService };

function status(active: boolean): 'active' | 'paused' {
  return active ? 'active' : 'paused';
}

function v1Task(row: TaskRow) {
  return { id: String(row.id), key: row.kind, value: row.value, status: status(row.active), created: row.created.toISOString(), updated: row.updated.toISOString() };
}

function v1Method(row: ChannelRow) {
  return {
    id: String(row.id),
    key: row.kind === 'phone' ? 'sms' : row.kind,
    value: row.value,
    active: channelActive(row),
    awaiting_confirmation: awaitingConfirmation(row),
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
    ...(row.secret ? { secret_hint: row.secret.slice(-4) } : {}),
  };
}

/** /get-user-info: one list of the caller's (tasks, domains or notification methods) with the tier's maximum. */
async function userInfo(deps: V1ReadDeps, userId: string, type: 'tasks' | 'domain_tasks' | 'notification_methods') {
  const info = await deps.tasks.info(userId);
  switch (type) {
    case 'tasks': {
      const { rows, total } = await deps.tasks.listTasks(userId, { kinds: STANDARD_TASK_KINDS, pageSize: 100_000 });
      return { type: 'tasks', tasks: rows.map(v1Task), total, max: info.max_standard_tasks };
    }
    case 'domain_tasks': {
      const domains = await deps.tasks.listDomains(userId);
      return {
        type: 'domain_tasks',
        domain_tasks: domains.map((d) => ({ id: d.id, domain: d.domain, status: status(d.active), updated: d.updated.toISOString() })),
        total: domains.length,
        max: info.max_domain_tasks,
      };
    }
    case 'notification_methods': {
      const rows = await deps.channels.list(userId);
      return { type: 'notification_methods', notification_methods: rows.map(v1Method), total: rows.length, max: info.max_notification_channels, max_webhooks: info.max_webhooks };
    }
  }
}

/** /get-breaches: the caller's reports, newest first, a page of them. */
async function breaches(reports: ReportsService, userId: string, page: number) {
  const { reports: rows, total_reports } = await reports.listReports(userId, page, REPORTS_PAGE_SIZE);
  return {
    breaches: rows.map((report) => ({ breach_id: report.id, database_name: report.database_name, results: report.results, created: report.created, tasks: report.tasks })),
    next_page: page * REPORTS_PAGE_SIZE < total_reports ? page + 1 : null,
  };
}

/** /get-breach-entries: a page of one report's entries, each with the task it matched. */
async function breachEntries(reports: ReportsService, userId: string, breachId: string, page: number) {
  const report = await reports.getReport(userId, breachId, 'api');
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
}

export function registerV1ReadRoutes(app: FastifyInstance, deps: V1ReadDeps) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
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
        response: { 200: UserInfo, ...errors },
      },
    },
    (request) => userInfo(deps, request.monitorV1UserId, request.body.type),
  );

  r.post(
    '/get-breaches',
    {
      schema: {
        operationId: 'monitorV1GetBreaches',
        tags,
        security,
        summary: `The caller's breaches (monitoring reports: breach_id is the report id), newest first, ${REPORTS_PAGE_SIZE} a page; next_page is null on the last page.`,
        body: Type.Object({ page: Page }, { additionalProperties: false }),
        response: { 200: Breaches, ...errors },
      },
    },
    (request) => breaches(deps.reports, request.monitorV1UserId, request.body.page ?? 1),
  );

  r.post(
    '/get-breach-entries',
    {
      schema: {
        operationId: 'monitorV1GetBreachEntries',
        tags,
        security,
        summary: `The entries of one breach (report), ${V1_ENTRIES_PAGE_SIZE} a page, each with the task it matched (task_type, task_value) and the public API entry fields; without search access values_hidden is true and no entries are shown; a domain task whose domain is not verified shows none either (its domain in unverified_domains). A breach that is not the caller's: 404.`,
        body: Type.Object({ breach_id: Type.String({ maxLength: 64, description: 'From get-breaches or from a webhook.' }), page: Page }, { additionalProperties: false }),
        response: { 200: BreachEntries, ...errors },
      },
    },
    (request) => breachEntries(deps.reports, request.monitorV1UserId, request.body.breach_id, request.body.page ?? 1),
  );
}
