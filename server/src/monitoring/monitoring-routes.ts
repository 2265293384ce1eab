/**
 * Dashboard calls of monitoring tasks and domains (shapes in docs/monitoring.md 'Calls').
 * `registerMonitoring` builds the task and channel services, exposes them to the public
 * APIs (`app.monitoring`, read by /v2/monitoring and the Monitor API V1) and registers the
 * dashboard routes of both.
 */
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Database } from '../db/schema';
import { TASK_KINDS, type TaskKind } from '../common/monitoring-rules';
import type { MonitoringInfo, MonitorTask, TasksPage } from '../common/monitoring-wire';
import { createMonitoringService, taskView, type MonitoringService } from './monitoring-service';
import { wireSchema } from './wire-schema';
import { createChannelsService, type ChannelsService } from './channels-service';
import { registerChannelsRoutes } from './channels-routes';
import { createChannelConfirmations } from './channels-confirmation';
import type { MailService } from '../mail/mail-service';
import type { Config } from '../config';
import { Id, Ids, Success, Value, errors } from './monitoring-schemas';

declare module 'fastify' {
  interface FastifyInstance {
    /** Monitoring's services, for the public APIs' plugins. */
    monitoring: { tasks: MonitoringService; channels: ChannelsService };
  }
}

const TaskKindSchema = Type.Unsafe<TaskKind>(Type.String({ enum: [...TASK_KINDS] }));
const Task = wireSchema<MonitorTask>()(
  Type.Object({
    id: Type.String(),
    key: TaskKindSchema,
    value: Type.String(),
    created: Type.String({ format: 'date-time' }),
    updated: Type.String({ format: 'date-time' }),
    active: Type.Boolean(),
  }),
);

const Info = wireSchema<MonitoringInfo>()(
  Type.Object({
    tier: Type.Union([Type.Literal('free'), Type.Literal('standard'), Type.Literal('enterprise'), Type.Literal('elevated')]),
    tier_label: Type.String({ description: 'Free, Standard, Enterprise or Elevated (the tier tag).' }),
    max_notification_channels: Type.Integer({ description: 'Email and SMS channels together.' }),
    active_notification_channels: Type.Integer({ description: 'Email and SMS channels with a value (a disabled one does not count).' }),
    max_webhooks: Type.Integer(),
    active_webhooks: Type.Integer(),
    max_standard_tasks: Type.Integer(),
    active_standard_tasks: Type.Integer({ description: 'Username, email, phone and name tasks, paused ones included.' }),
    max_domain_tasks: Type.Integer(),
    active_domain_tasks: Type.Integer(),
    domain_slots: Type.Integer({ description: 'Domain slots of current domain subscriptions.' }),
    is_enterprise: Type.Boolean(),
    elevated: Type.Boolean(),
    sms_available: Type.Boolean(),
  }),
);

export function registerMonitoring(app: FastifyInstance, deps: { db: Kysely<Database>; allowPrivateWebhooks: boolean; mail: MailService; config: Config }) {
  const tasks = createMonitoringService({ db: deps.db });
  const confirmations = createChannelConfirmations({ db: deps.db, mail: deps.mail, config: deps.config });
  const channels = createChannelsService({ db: deps.db, allowPrivateWebhooks: deps.allowPrivateWebhooks, confirmations });
  app.decorate('monitoring', { tasks, channels });
  registerMonitoringRoutes(app, { tasks });
  registerChannelsRoutes(app, { channels, confirmations, brand: deps.config.BRAND });
}

const tags = ['monitoring'];
const security = [{ bearer: [] }];

export function registerMonitoringRoutes(app: FastifyInstance, deps: { tasks: MonitoringService }) {
  registerTaskReadRoutes(app, deps.tasks);
  registerTaskWriteRoutes(app, deps.tasks);
  registerDomainTaskRoutes(app, deps.tasks);
}

/** The tier and its usage, and the task list. */
function registerTaskReadRoutes(app: FastifyInstance, tasks: MonitoringService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const common = { onRequest: [app.authenticate] };
  r.get(
    '/monitoring/info',
    {
      ...common,
      schema: {
        operationId: 'monitoringInfo',
        tags,
        security,
        summary: "The monitoring tier, its limits and what is in use (the dashboard's usage blocks and add checks).",
        response: { 200: Info, ...errors },
      },
    },
    (request) => tasks.info(request.user.sub),
  );

  r.post(
    '/monitoring/get-tasks',
    {
      ...common,
      schema: {
        operationId: 'monitoringGetTasks',
        tags,
        security,
        summary: 'The caller\'s tasks (every kind, domain tasks included), oldest first, 500 a page.',
        body: Type.Object(
          { active_only: Type.Boolean({ default: false }), page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ tasks: Type.Array(Task), total: Type.Integer(), page: Type.Integer(), next_page: Type.Union([Type.Integer(), Type.Null()]) }),
          ...errors,
        },
      },
    },
    async (request) => {
      const { rows, total, page, next_page } = await tasks.listTasks(request.user.sub, {
        activeOnly: request.body.active_only,
        page: request.body.page,
      });
      return { tasks: rows.map(taskView), total, page, next_page } satisfies TasksPage;
    },
  );
}

function registerTaskWriteRoutes(app: FastifyInstance, tasks: MonitoringService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const common = { onRequest: [app.authenticate] };
  r.post(
    '/monitoring/add-task',
    {
      ...common,
      schema: {
        operationId: 'monitoringAddTask',
        tags,
        security,
        summary:
          "Adds a task. 400 with the documented message for a bad value or a reached maximum (standard and domain tasks counted apart), or for a value already watched. Domain tasks here: enterprise and elevated only.",
        body: Type.Object({ key: Type.String({ maxLength: 32 }), value: Value }, { additionalProperties: false }),
        response: { 200: Type.Object({ success: Type.Literal(true), task: Task }), ...errors },
      },
    },
    async (request) => ({ success: true as const, task: taskView(await tasks.addTask(request.user.sub, request.body.key, request.body.value)) }),
  );

  r.post(
    '/monitoring/update-task',
    {
      ...common,
      schema: {
        operationId: 'monitoringUpdateTask',
        tags,
        security,
        summary: "Changes a task's value (and kind) or pauses and resumes it (`active`). Another user's task: 404.",
        body: Type.Object(
          { id: Id, key: Type.Optional(Type.String({ maxLength: 32 })), value: Type.Optional(Value), active: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ success: Type.Literal(true), task: Task }), ...errors },
      },
    },
    async (request) => {
      const { id, key, value, active } = request.body;
      return { success: true as const, task: taskView(await tasks.updateTask(request.user.sub, id, { key, value, active })) };
    },
  );

  r.post(
    '/monitoring/delete-tasks',
    {
      ...common,
      schema: {
        operationId: 'monitoringDeleteTasks',
        tags,
        security,
        summary: "Deletes tasks. Any id that is not the caller's task: 404, and nothing is deleted.",
        body: Type.Object({ ids: Ids }, { additionalProperties: false }),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      await tasks.deleteTasks(request.user.sub, request.body.ids);
      return { success: true as const };
    },
  );
}

/** A domain slot's domain, set and cleared. */
function registerDomainTaskRoutes(app: FastifyInstance, tasks: MonitoringService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const common = { onRequest: [app.authenticate] };
  r.post(
    '/monitoring/clear-domains',
    {
      ...common,
      schema: {
        operationId: 'monitoringClearDomains',
        tags,
        security,
        summary: "Deletes domain tasks; a domain slot's task is emptied and the slot stays. Any id that is not the caller's domain task: 404.",
        body: Type.Object({ ids: Ids }, { additionalProperties: false }),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      await tasks.clearDomains(request.user.sub, request.body.ids);
      return { success: true as const };
    },
  );

  r.post(
    '/monitoring/set-domain',
    {
      ...common,
      schema: {
        operationId: 'monitoringSetDomain',
        tags,
        security,
        summary:
          "Sets the domain of a domain slot (`id`: the slot's id from GET /subscriptions), creating or updating its domain task; without `id`, the first empty slot, else (enterprise) a new domain task. 400 'invalid domain value'; a slot that is not the caller's current slot: 404.",
        body: Type.Object({ id: Type.Optional(Type.Union([Id, Type.Null()])), domain: Value }, { additionalProperties: false }),
        response: { 200: Type.Object({ value: Type.String() }), ...errors },
      },
    },
    async (request) => ({ value: (await tasks.setDomain(request.user.sub, request.body.id ?? undefined, request.body.domain)).value }),
  );
}
