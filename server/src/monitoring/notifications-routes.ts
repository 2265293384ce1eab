/** The inbox calls (shapes in docs/monitoring.md "Calls"). */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { NOTIFICATION_PAGE_SIZES } from '../common/monitoring-rules';
import type { InboxNotification } from '../common/monitoring-wire';
import type { NotificationsService } from './notifications-service';
import { wireSchema } from './wire-schema';
import { ErrorBody } from '../infra/errors';

const Id = Type.String({ pattern: '^[0-9]{1,18}$' });

const Notification = wireSchema<InboxNotification>()(
  Type.Object({
    id: Type.String(),
    global: Type.Boolean(),
    seen: Type.Boolean({ description: 'As it was before this read: the page’s unseen notices are marked seen after it.' }),
    type: Type.String(),
    data: Type.String({ description: 'The message, plain text.' }),
    created: Type.String({ description: 'ISO 8601.' }),
    link: Type.Union([Type.String(), Type.Null()], { description: 'A dashboard path, e.g. /monitoring/reports/{id}.' }),
  }),
);

export function registerNotificationsRoutes(app: FastifyInstance, deps: { notifications: NotificationsService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const security = [{ bearer: [] }];

  r.post(
    '/notifications/get',
    {
      onRequest: [app.authenticate],
      schema: {
        operationId: 'notificationsGet',
        tags: ['notifications'],
        security,
        summary: 'A page of the caller’s notifications, newest first; the unseen ones returned are marked seen afterwards.',
        body: Type.Object(
          {
            page: Type.Integer({ minimum: 1, maximum: 100_000, default: 1 }),
            per_page: Type.Unsafe<number>({ type: 'integer', enum: [...NOTIFICATION_PAGE_SIZES], default: NOTIFICATION_PAGE_SIZES[0] }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ notifications: Type.Array(Notification), total: Type.Integer() }), 400: ErrorBody, 401: ErrorBody },
      },
    },
    (request) => deps.notifications.page(request.user.sub, request.body.page, request.body.per_page),
  );

  r.post(
    '/notifications/delete',
    {
      onRequest: [app.authenticate],
      schema: {
        operationId: 'notificationsDelete',
        tags: ['notifications'],
        security,
        summary: 'Deletes the caller’s notifications among `ids` (ids that are not the caller’s are ignored).',
        body: Type.Object({ ids: Type.Array(Id, { minItems: 1, maxItems: 1000 }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ success: Type.Literal(true) }), 400: ErrorBody, 401: ErrorBody },
      },
    },
    async (request) => {
      await deps.notifications.delete(request.user.sub, request.body.ids);
      return { success: true as const };
    },
  );
}
