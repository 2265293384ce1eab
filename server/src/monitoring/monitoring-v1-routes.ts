/**
 * Monitoring's calls of the Monitor API V1 (docs/monitoring.md "Monitor API V1"), registered
 * behind V1's guard with `app.monitorV1Routes` (monitor-api-v1/monitor-v1-plugin.ts: bearer
 * key, its own limits, V1's error codes). A missing or invalid field is V1's 302 with the
 * reason. Same services, rules and limits as the dashboard and /v2. The writes (create,
 * update, delete) are here, the reads in monitoring-v1-read-routes.ts.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from 'typebox';
import { Errors } from '../infra/errors';
import { STANDARD_TASK_KINDS, type StandardTaskKind } from '../common/monitoring-rules';
import type { ReportsService } from './reports-service';
import type { MonitoringService } from './monitoring-service';
import type { ChannelsService } from './channels-service';
import { invalidV1Field as invalid } from '../monitor-api-v1/monitor-v1-schemas';
import { v1Errors as errors, v1Security as security, v1Tags as tags } from './monitoring-v1-schemas';
import { registerV1ReadRoutes } from './monitoring-v1-read-routes';

/** V1's documented name rule: letters and spaces only, 10 to 48 characters. */
export const V1_NAME_PATTERN = /^[\p{L} ]{10,48}$/u;
export const V1_NAME_MESSAGE = 'name must be 10 to 48 letters and spaces';

type V1Deps = { tasks: MonitoringService; channels: ChannelsService };

const CreateType = Type.Union([Type.Literal('task'), Type.Literal('notification_method'), Type.Literal('domain_task')], {
  description: 'task, notification_method or domain_task.',
});
const Id = Type.Union([Type.String({ maxLength: 64 }), Type.Integer()], { description: 'Its id, from create or get-user-info.' });
const Value = (description: string) => Type.String({ maxLength: 4096, description });
const Success = Type.Object({ success: Type.Literal(true) });

const CreateBody = Type.Object(
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
);
const UpdateBody = Type.Object(
  {
    id: Id,
    update_type: CreateType,
    task_status: Type.Optional(Type.Union([Type.Literal('pause'), Type.Literal('resume'), Type.Literal('delete')], { description: 'pause, resume or delete.' })),
    value: Type.Optional(Value('The new value, checked as on create.')),
  },
  { additionalProperties: false },
);

function standardKind(key: string | undefined): StandardTaskKind {
  const kind = STANDARD_TASK_KINDS.find((k) => k === key);
  if (!kind) throw invalid('key must be one of email, username, phone, name');
  return kind;
}

/** V1's own rule for names, on top of the shared rules. */
function checkV1Value(kind: string, value: string): void {
  if (kind === 'name' && !V1_NAME_PATTERN.test(value.trim())) throw invalid(V1_NAME_MESSAGE);
}

/** /create: a task, a domain_task or a notification_method; a webhook's secret is answered once. */
async function create(deps: V1Deps, userId: string, body: Static<typeof CreateBody>): Promise<{ id: string; secret?: string }> {
  const { key, value } = body;
  const kind = body.create_type ?? body.type;
  if (!kind) throw invalid('create_type must be task, notification_method or domain_task');
  if (kind === 'task') {
    const taskKind = standardKind(key);
    checkV1Value(taskKind, value);
    return { id: String((await deps.tasks.addTask(userId, taskKind, value)).id) };
  }
  if (kind === 'domain_task') {
    if (key !== undefined && key !== 'domain') throw invalid('key of a domain_task is domain');
    return { id: String((await deps.tasks.setDomain(userId, undefined, value)).task.id) };
  }
  if (key === undefined) throw invalid('key must be one of email, sms, webhook');
  const { channel, secret } = await deps.channels.add(userId, key, value);
  return { id: String(channel.id), ...(secret ? { secret } : {}) };
}

/** /update of a notification_method: a new value ('' disables it), or delete. */
async function updateChannel(channels: ChannelsService, userId: string, body: Static<typeof UpdateBody>): Promise<void> {
  const { id, task_status, value } = body;
  await channels.get(userId, id);
  if (task_status === 'delete') await channels.remove(userId, [id]);
  else if (task_status !== undefined) throw invalid('task_status of a notification_method is delete');
  else await channels.update(userId, id, undefined, value!);
}

/** /update of a task or domain_task: pause, resume or delete; or a new value. */
async function updateTask(tasks: MonitoringService, userId: string, body: Static<typeof UpdateBody>): Promise<void> {
  const { id, update_type, task_status, value } = body;
  const row = await tasks.getTask(userId, id);
  // A task id given as a domain_task (or the other way round) is not found as such.
  if ((row.kind === 'domain') !== (update_type === 'domain_task')) throw Errors.notFound('Task not found');
  if (task_status === 'delete') return tasks.deleteTasks(userId, [id]);
  if (value !== undefined) checkV1Value(row.kind, value);
  if (value !== undefined && row.kind === 'domain') await tasks.updateDomain(userId, id, value);
  const active = task_status === undefined ? undefined : task_status === 'resume';
  if (active !== undefined || (value !== undefined && row.kind !== 'domain')) {
    await tasks.updateTask(userId, id, { value: row.kind === 'domain' ? undefined : value, active });
  }
}

/** /delete: a task, a domain_task (a domain slot is emptied and stays) or a notification_method. */
async function remove(deps: V1Deps, userId: string, deleteType: Static<typeof CreateType>, id: string | number): Promise<void> {
  if (deleteType === 'notification_method') return deps.channels.remove(userId, [id]);
  if (deleteType === 'domain_task') return deps.tasks.clearDomain(userId, id);
  const row = await deps.tasks.getTask(userId, id);
  if (row.kind === 'domain') throw Errors.notFound('Task not found');
  await deps.tasks.deleteTasks(userId, [id]);
}

function registerV1WriteRoutes(app: FastifyInstance, deps: V1Deps) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/create',
    {
      schema: {
        operationId: 'monitorV1Create',
        tags,
        security,
        summary:
          "Creates a task (key email, username, phone or name), a notification_method (key email, sms, webhook) or a domain_task (value a host name). The kind goes in `create_type` (or `type`). A webhook's signing secret is answered once, in `secret`.",
        body: CreateBody,
        response: { 200: Type.Object({ success: Type.Literal(true), id: Type.String(), secret: Type.Optional(Type.String()) }), ...errors },
      },
    },
    async (request) => ({ success: true as const, ...(await create(deps, request.monitorV1UserId, request.body)) }),
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
        body: UpdateBody,
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      const { update_type, task_status, value } = request.body;
      if (task_status === undefined && value === undefined) throw invalid('task_status or value is required');
      if (update_type === 'notification_method') await updateChannel(deps.channels, request.monitorV1UserId, request.body);
      else await updateTask(deps.tasks, request.monitorV1UserId, request.body);
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
      await remove(deps, request.monitorV1UserId, request.body.delete_type, request.body.id);
      return { success: true as const };
    },
  );
}

/** Register with `app.monitorV1Routes` (paths relative to /monitor-api/v1). */
export function registerMonitoringV1Routes(app: FastifyInstance, deps: V1Deps & { reports: ReportsService }) {
  registerV1WriteRoutes(app, deps);
  registerV1ReadRoutes(app, deps);
}
