/** Dashboard calls of notification channels (shapes in docs/monitoring.md 'Calls'). */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CHANNEL_KINDS, type ChannelKind } from '../common/monitoring-rules';
import type { ChannelInfo, NotificationChannel } from '../common/monitoring-wire';
import { channelView, type ChannelsService } from './channels-service';
import { CONFIRM_CHANNEL_PATH, type ChannelConfirmations } from './channels-confirmation';
import { Id, Ids, Success, Value, errors } from './monitoring-schemas';
import { wireSchema } from './wire-schema';
import { escapeHtml, linkPage } from '../infra/link-page';

const Channel = wireSchema<NotificationChannel>()(
  Type.Object({
    id: Type.String(),
    key: Type.Unsafe<ChannelKind>(Type.String({ enum: [...CHANNEL_KINDS], description: 'phone is the SMS channel.' })),
    value: Type.String({ description: "'' when disabled." }),
    created: Type.String({ format: 'date-time' }),
    updated: Type.String({ format: 'date-time' }),
    active: Type.Boolean(),
    awaiting_confirmation: Type.Boolean({ description: 'An email channel whose address is not confirmed yet: it gets no alert until its owner follows the mailed link.' }),
    secret_hint: Type.Optional(Type.String({ description: "A webhook's signing secret: its last 4 characters." })),
    disabled_reason: Type.Optional(Type.String({ description: 'Why the system turned the channel off (e.g. the receiver answered 410).' })),
  }),
);

const KindInfo = wireSchema<ChannelInfo | null>()(
  Type.Union([
    Type.Object({
      available: Type.Boolean({ description: 'Whether one more channel of this kind can be added or turned on now.' }),
      value: Type.String({ description: "The newest channel's value; '' when there is none or it is disabled." }),
      id: Type.Union([Type.String(), Type.Null()]),
      updated: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      active: Type.Boolean(),
      awaiting_confirmation: Type.Boolean(),
    }),
    Type.Null(),
  ]),
);

const Key = Type.String({ maxLength: 32, description: 'email, sms (or phone), webhook' });

function page(reply: FastifyReply, status: number, brand: string, body: string) {
  return linkPage(reply, status, { brand, title: 'alerts', body });
}

/**
 * The link of a channel confirmation mail: GET shows a page with a Confirm button (a mail
 * scanner following the link confirms nothing), POST confirms and voids the link.
 */
function registerConfirmRoutes(app: FastifyInstance, deps: { confirmations: ChannelConfirmations; brand: string }) {
  const querySchema = { type: 'object', properties: { t: { type: 'string', maxLength: 200 } }, additionalProperties: true } as const;
  const invalid = (reply: FastifyReply) =>
    page(reply, 400, deps.brand, '<h1>Link not valid</h1><p>This confirmation link is not valid: it was used already, it expired, or a newer one was sent. Ask for a new one on the notification channels page (Resend confirmation).</p>');
  app.register(async (scope) => {
    scope.addContentTypeParser(['application/x-www-form-urlencoded'], { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => done(null, body));
    scope.get<{ Querystring: { t?: string } }>(
      CONFIRM_CHANNEL_PATH,
      { schema: { operationId: 'alertChannelConfirmPage', tags: ['notification channels'], summary: 'Page of an email channel confirmation link', querystring: querySchema } },
      async (request, reply) => {
        const channel = await deps.confirmations.peek(request.query.t ?? '');
        if (!channel) return invalid(reply);
        const action = `${CONFIRM_CHANNEL_PATH}?t=${encodeURIComponent(request.query.t ?? '')}`;
        return page(
          reply,
          200,
          deps.brand,
          `<h1>Confirm alerts</h1><p>Send monitoring alerts to ${escapeHtml(channel.value)}?</p><form method="post" action="${escapeHtml(action)}"><button type="submit">Confirm</button></form>`,
        );
      },
    );
    scope.post<{ Querystring: { t?: string } }>(
      CONFIRM_CHANNEL_PATH,
      { schema: { operationId: 'alertChannelConfirm', tags: ['notification channels'], summary: 'Confirms the email channel of a confirmation link (the link works once)', querystring: querySchema } },
      async (request, reply) => {
        const channel = await deps.confirmations.confirm(request.query.t ?? '');
        if (!channel) return invalid(reply);
        return page(reply, 200, deps.brand, `<h1>Confirmed</h1><p>Monitoring alerts will be sent to ${escapeHtml(channel.value)}.</p>`);
      },
    );
  });
}

const tags = ['notification channels'];
const security = [{ bearer: [] }];

export function registerChannelsRoutes(app: FastifyInstance, deps: { channels: ChannelsService; confirmations: ChannelConfirmations; brand: string }) {
  registerConfirmRoutes(app, deps);
  registerChannelReadRoutes(app, deps.channels);
  registerChannelWriteRoutes(app, deps.channels);
  registerResendConfirmationRoute(app, deps.channels);
  registerChannelDeleteRoute(app, deps.channels);
}

function registerChannelReadRoutes(app: FastifyInstance, channels: ChannelsService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const common = { onRequest: [app.authenticate] };
  r.get(
    '/notification-channels/info',
    {
      ...common,
      schema: {
        operationId: 'notificationChannelsInfo',
        tags,
        security,
        summary: "Per kind, the newest channel and whether another fits; null when the caller's tier has no channel of that kind.",
        response: { 200: Type.Object({ email: KindInfo, phone: KindInfo, webhook: KindInfo }), ...errors },
      },
    },
    (request) => channels.info(request.user.sub),
  );

  r.post(
    '/notification-channels/get',
    {
      ...common,
      schema: {
        operationId: 'notificationChannelsGet',
        tags,
        security,
        summary: "The caller's channels, newest first.",
        body: Type.Optional(Type.Object({}, { additionalProperties: false })),
        response: { 200: Type.Object({ notification_channels: Type.Array(Channel) }), ...errors },
      },
    },
    async (request) => ({ notification_channels: (await channels.list(request.user.sub)).map(channelView) }),
  );
}

function registerChannelWriteRoutes(app: FastifyInstance, channels: ChannelsService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const common = { onRequest: [app.authenticate] };
  r.post(
    '/notification-channels/add',
    {
      ...common,
      schema: {
        operationId: 'notificationChannelsAdd',
        tags,
        security,
        summary:
          "Adds a channel. 400 with the documented message for a bad value, an unsafe webhook URL, a value already there, or a reached maximum (a kind the tier lacks: its class's 'reached maximum'). A webhook's signing secret is in this answer only.",
        body: Type.Object({ key: Key, value: Value }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            success: Type.Literal(true),
            channel: Channel,
            secret: Type.Optional(Type.String({ description: 'Webhooks: the Standard Webhooks secret (whsec_…), shown once.' })),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const { channel, secret } = await channels.add(request.user.sub, request.body.key, request.body.value);
      return { success: true as const, channel: channelView(channel), ...(secret ? { secret } : {}) };
    },
  );

  r.post(
    '/notification-channels/update',
    {
      ...common,
      schema: {
        operationId: 'notificationChannelsUpdate',
        tags,
        security,
        summary: "A channel's new value; '' disables it (Disable). Turning a disabled channel on must fit the tier. The kind cannot change. Another user's channel: 404.",
        body: Type.Object({ id: Id, key: Type.Optional(Key), value: Value }, { additionalProperties: false }),
        response: {
          200: Type.Object({ success: Type.Literal(true), channel: Channel, secret: Type.Optional(Type.String()) }),
          ...errors,
        },
      },
    },
    async (request) => {
      const { id, key, value } = request.body;
      const { channel, secret } = await channels.update(request.user.sub, id, key, value);
      return { success: true as const, channel: channelView(channel), ...(secret ? { secret } : {}) };
    },
  );
}

/** Email channels awaiting confirmation: a new link. */
function registerResendConfirmationRoute(app: FastifyInstance, channels: ChannelsService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const common = { onRequest: [app.authenticate] };
  r.post(
    '/notification-channels/resend-confirmation',
    {
      ...common,
      schema: {
        operationId: 'notificationChannelsResendConfirmation',
        tags,
        security,
        summary:
          "Mails a new confirmation link to an email channel awaiting confirmation (the previous link stops working). 400 when it needs none; 429 with Retry-After within a minute of the last mail; another user's channel: 404.",
        body: Type.Object({ id: Id }, { additionalProperties: false }),
        response: { 200: Type.Object({ success: Type.Literal(true), channel: Channel }), ...errors },
      },
    },
    async (request) => ({ success: true as const, channel: channelView(await channels.resendConfirmation(request.user.sub, request.body.id)) }),
  );
}

function registerChannelDeleteRoute(app: FastifyInstance, channels: ChannelsService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const common = { onRequest: [app.authenticate] };
  r.post(
    '/notification-channels/delete',
    {
      ...common,
      schema: {
        operationId: 'notificationChannelsDelete',
        tags,
        security,
        summary: "Deletes channels. Any id that is not the caller's channel: 404, and nothing is deleted.",
        body: Type.Object({ ids: Ids }, { additionalProperties: false }),
        response: { 200: Success, ...errors },
      },
    },
    async (request) => {
      await channels.remove(request.user.sub, request.body.ids);
      return { success: true as const };
    },
  );
}
