/**
 * `/v2/monitoring/*` tasks, channels and domains in DeHashed v2's shapes
 * (docs/monitoring.md "Calls"). Registered with `app.v2Routes`
 * (monitoring-plugin.ts), so its key guard and rate limits apply; free of credits. The same services as the
 * dashboard (`app.monitoring`), so every rule, message and limit is the same; another user's
 * id: 404. The report calls are in reports-v2-routes.ts.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { awaitingConfirmation, type ChannelsService } from './channels-service';
import type { MonitoringService } from './monitoring-service';
import { ErrorBody, Errors } from '../infra/errors';
import { API_TASKS_PAGE_SIZE, STANDARD_TASK_KINDS, TASK_KINDS, channelKind, type ChannelKind, type TaskKind } from '../common/monitoring-rules';
import { IdField, Success, ValueField } from './monitoring-schemas';
import type { TaskRow } from './monitoring-repository';
import type { ChannelRow } from './channels-repository';

export const API_TASK_TYPE_MESSAGE = 'type must be one of email, username, phone, name';
export const API_CHANNEL_TYPE_MESSAGE = 'type must be webhook or email (SMS alerts are set up on the dashboard)';

/** The public API's channel types: webhook and email. SMS channels exist on the dashboard only,
 * so a client written against the two documented types never meets a third one. */
export const API_CHANNEL_KINDS = ['webhook', 'email'] as const satisfies readonly ChannelKind[];

function apiChannelKind(type: unknown): (typeof API_CHANNEL_KINDS)[number] {
  const kind = API_CHANNEL_KINDS.find((k) => k === type);
  if (!kind) throw Errors.badRequest(API_CHANNEL_TYPE_MESSAGE);
  return kind;
}

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
const TaskType = Type.Unsafe<TaskKind>(Type.String({ enum: [...TASK_KINDS] }));
const ApiTask = Type.Object({
  id: Type.String(),
  type: TaskType,
  value: Type.String(),
  active: Type.Boolean(),
  created: Type.String({ format: 'date-time' }),
  updated: Type.String({ format: 'date-time' }),
});

function apiTask(row: TaskRow) {
  return { id: String(row.id), type: row.kind, value: row.value, active: row.active, created: row.created.toISOString(), updated: row.updated.toISOString() };
}

const ApiChannel = Type.Object({
  id: Type.String(),
  type: Type.String(),
  value: Type.String(),
  updated_at: Type.String({ format: 'date-time' }),
  awaiting_confirmation: Type.Boolean({ description: 'An email address not confirmed yet: no alert goes there until its owner follows the mailed link.' }),
});

function apiChannel(row: ChannelRow) {
  return { id: String(row.id), type: row.kind, value: row.value, updated_at: row.updated.toISOString(), awaiting_confirmation: awaitingConfirmation(row) };
}

function isApiChannel(kind: ChannelKind): boolean {
  return (API_CHANNEL_KINDS as readonly ChannelKind[]).includes(kind);
}

function standardType(type: string): (typeof STANDARD_TASK_KINDS)[number] {
  const kind = STANDARD_TASK_KINDS.find((k) => k === type);
  if (!kind) throw Errors.badRequest(API_TASK_TYPE_MESSAGE);
  return kind;
}

const tags = ['public api v2'];
const security = [{ apiKey: [] }];

/** Call inside a /v2 context (`app.v2Routes`, after its guard hook); reads the services from `app.monitoring`. */
export function registerMonitoringV2Routes(app: FastifyInstance) {
  const { tasks, channels } = app.monitoring;
  registerV2TaskWriteRoutes(app, tasks);
  registerV2TaskReadRoutes(app, tasks);
  registerV2ChannelRoutes(app, channels);
  registerV2DomainRoutes(app, tasks);
}

function registerV2TaskWriteRoutes(app: FastifyInstance, tasks: MonitoringService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/monitoring/create-task',
    {
      schema: {
        operationId: 'v2MonitoringCreateTask',
        tags,
        security,
        summary: "Watches a value. type: email, username, phone or name (domains: update-domain). 400 with the rule's message, for a value already watched, or 'Can not add additional tasks (reached maximum)'.",
        body: Type.Object(
          {
            type: Type.String({ maxLength: 32, description: 'email, username, phone or name.' }),
            value: ValueField('At most 256 characters. Usernames and names 4 to 64 characters; phones 4 to 15 digits, no spaces, dashes or country code.'),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ success: Type.Literal(true), id: Type.String() }), ...errors },
      },
    },
    async (request) => {
      const row = await tasks.addTask(request.apiKeyUserId, standardType(request.body.type), request.body.value);
      return { success: true as const, id: String(row.id) };
    },
  );

  r.post(
    '/monitoring/update-task',
    {
      schema: {
        operationId: 'v2MonitoringUpdateTask',
        tags,
        security,
        summary: "Changes a task's type and value, or pauses (active false) and resumes it. Another user's or an unknown id: 404.",
        body: Type.Object(
          {
            id: IdField('The task id.'),
            type: Type.Optional(Type.String({ maxLength: 32, description: 'email, username, phone or name.' })),
            value: Type.Optional(ValueField('The new value, checked as on create.')),
            active: Type.Optional(Type.Boolean({ description: 'false pauses the task, true resumes it.' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      const { id, type, value, active } = request.body;
      const row = await tasks.getTask(request.apiKeyUserId, id);
      // A domain task keeps its type; the others move between the four standard types only.
      const key = type === undefined ? undefined : row.kind === 'domain' && type === 'domain' ? 'domain' : standardType(type);
      await tasks.updateTask(request.apiKeyUserId, id, { key, value, active });
      return { success: true as const };
    },
  );

  r.post(
    '/monitoring/delete-task',
    {
      schema: {
        operationId: 'v2MonitoringDeleteTask',
        tags,
        security,
        summary: "Deletes a task. Another user's or an unknown id: 404.",
        body: Type.Object({ id: IdField('The task id.') }, { additionalProperties: false }),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      await tasks.deleteTasks(request.apiKeyUserId, [request.body.id]);
      return { success: true as const };
    },
  );
}

function registerV2TaskReadRoutes(app: FastifyInstance, tasks: MonitoringService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/monitoring/get-task',
    {
      schema: {
        operationId: 'v2MonitoringGetTask',
        tags,
        security,
        summary: "One task. Another user's or an unknown id: 404.",
        body: Type.Object({ id: IdField('The task id from get-tasks.') }, { additionalProperties: false }),
        response: { 200: ApiTask, ...errors },
      },
    },
    async (request) => apiTask(await tasks.getTask(request.apiKeyUserId, request.body.id)),
  );

  r.post(
    '/monitoring/get-tasks',
    {
      schema: {
        operationId: 'v2MonitoringGetTasks',
        tags,
        security,
        summary: `The caller's tasks of the four standard types, oldest first, ${API_TASKS_PAGE_SIZE} a page; total, active and inactive count them all; max is the tier's task limit; next_page is null on the last page.`,
        body: Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Page number, from 1.' })) }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            tasks: Type.Array(ApiTask),
            total: Type.Integer(),
            active: Type.Integer(),
            inactive: Type.Integer(),
            max: Type.Integer(),
            next_page: Type.Union([Type.Integer(), Type.Null()]),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const userId = request.apiKeyUserId;
      const [list, counts, info] = await Promise.all([
        tasks.listTasks(userId, { page: request.body.page, pageSize: API_TASKS_PAGE_SIZE, kinds: STANDARD_TASK_KINDS }),
        tasks.countStandardTasks(userId),
        tasks.info(userId),
      ]);
      return {
        tasks: list.rows.map(apiTask),
        total: list.total,
        active: counts.active,
        inactive: counts.inactive,
        max: info.max_standard_tasks,
        next_page: list.next_page,
      };
    },
  );
}

function registerV2ChannelRoutes(app: FastifyInstance, channels: ChannelsService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/monitoring/get-channels',
    {
      schema: {
        operationId: 'v2MonitoringGetChannels',
        tags,
        security,
        summary: "The caller's webhook and email channels, newest first (value '' is a disabled channel).",
        response: { 200: Type.Object({ channels: Type.Array(ApiChannel) }), ...errors },
      },
    },
    async (request) => ({ channels: (await channels.list(request.apiKeyUserId)).filter((row) => isApiChannel(row.kind)).map(apiChannel) }),
  );

  r.post(
    '/monitoring/update-channel',
    {
      schema: {
        operationId: 'v2MonitoringUpdateChannel',
        tags,
        security,
        summary:
          "Sets the newest channel of a type (webhook or email), creating it when there is none; an empty value disables it. A webhook created here answers its signing secret (whsec_…) once, in `secret`.",
        body: Type.Object(
          {
            type: Type.String({ maxLength: 32, description: 'email or webhook (SMS alerts are set up on the dashboard).' }),
            value: ValueField('An email address or an http(s) URL; empty to disable.'),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ success: Type.Literal(true), secret: Type.Optional(Type.String()) }), ...errors },
      },
    },
    async (request) => {
      const { secret } = await channels.upsertNewest(request.apiKeyUserId, apiChannelKind(request.body.type), request.body.value);
      return { success: true as const, ...(secret ? { secret } : {}) };
    },
  );

  r.post(
    '/monitoring/delete-channel',
    {
      schema: {
        operationId: 'v2MonitoringDeleteChannel',
        tags,
        security,
        summary: "Deletes a webhook or email channel by id, or every channel of a type (webhook, email). Another user's, an unknown or an SMS channel's id: 404.",
        body: Type.Object({ channel: IdField('email, webhook, or a channel id from get-channels.') }, { additionalProperties: false }),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      // A type names every channel of it ('sms' and 'phone' are refused as types); else an id.
      const kind = channelKind(request.body.channel);
      await channels.removeByKindOrId(request.apiKeyUserId, kind ? apiChannelKind(kind) : request.body.channel, API_CHANNEL_KINDS);
      return { success: true as const };
    },
  );
}

function registerV2DomainRoutes(app: FastifyInstance, tasks: MonitoringService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.get(
    '/monitoring/get-domains',
    {
      schema: {
        operationId: 'v2MonitoringGetDomains',
        tags,
        security,
        summary:
          "The caller's monitored domains: each slot of a current domain subscription (its id a UUID; domain null until set) and each domain task an enterprise account added (its id a number).",
        response: {
          200: Type.Object({
            domains: Type.Array(
              Type.Object({ id: Type.String(), domain: Type.Union([Type.String(), Type.Null()]), updated: Type.String({ format: 'date-time' }) }),
            ),
          }),
          ...errors,
        },
      },
    },
    async (request) => ({
      domains: (await tasks.listDomains(request.apiKeyUserId)).map((d) => ({ id: d.id, domain: d.domain, updated: d.updated.toISOString() })),
    }),
  );

  r.post(
    '/monitoring/update-domain',
    {
      schema: {
        operationId: 'v2MonitoringUpdateDomain',
        tags,
        security,
        summary:
          "Sets a monitored domain (a host name, no scheme): `id` from get-domains; without `id`, the first empty slot, else (enterprise) a new domain task. 400 'invalid domain value'; another user's or an unknown id: 404.",
        body: Type.Object(
          { id: Type.Optional(IdField('The id from get-domains.')), domain: ValueField('A host name such as example.com.') },
          { additionalProperties: false },
        ),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      await tasks.updateDomain(request.apiKeyUserId, request.body.id, request.body.domain);
      return { success: true as const };
    },
  );

  r.post(
    '/monitoring/clear-domain',
    {
      schema: {
        operationId: 'v2MonitoringClearDomain',
        tags,
        security,
        summary: "Stops monitoring a domain: a slot is emptied (it stays, to be set again), an enterprise domain task deleted. Another user's or an unknown id: 404.",
        body: Type.Object({ id: IdField('The id from get-domains.') }, { additionalProperties: false }),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      await tasks.clearDomain(request.apiKeyUserId, request.body.id);
      return { success: true as const };
    },
  );
}
