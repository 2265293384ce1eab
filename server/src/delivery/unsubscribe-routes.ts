/**
 * List-Unsubscribe for alert mails: GET shows a small confirmation page (a mail scanner
 * following the link must not unsubscribe anyone), POST disables that email channel —
 * the page's button, or a mail client's RFC 8058 one-click POST
 * (`List-Unsubscribe=One-Click`). The token is an HMAC of the channel id (signing.ts).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { verifyUnsubscribeToken } from './signing';
import { disableChannel, readChannel } from './delivery-repository';
import { UNSUBSCRIBE_PATH } from './deliver';
import { escapeHtml, linkPage } from '../infra/link-page';

export const UNSUBSCRIBED_REASON = 'Unsubscribed from the alert mail (List-Unsubscribe)';

function page(reply: FastifyReply, status: number, brand: string, body: string) {
  return linkPage(reply, status, { brand, title: 'alerts', body });
}

const querySchema = { type: 'object', properties: { t: { type: 'string', maxLength: 100 } }, additionalProperties: true } as const;

export function registerUnsubscribeRoutes(app: FastifyInstance, deps: { db: Kysely<Database>; key: Buffer; brand: string }): void {
  const channelFor = async (token: string | undefined) => {
    const id = token ? verifyUnsubscribeToken(deps.key, token) : null;
    const channel = id ? await readChannel(deps.db, id) : undefined;
    return channel && channel.kind === 'email' ? channel : undefined;
  };
  const invalid = (reply: FastifyReply) => page(reply, 400, deps.brand, '<p>This unsubscribe link is not valid.</p>');

  app.register(async (scope) => {
    // One-click POSTs are form-encoded (or multipart); the body itself carries nothing we need.
    scope.addContentTypeParser(['application/x-www-form-urlencoded', 'multipart/form-data'], { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) =>
      done(null, body),
    );
    scope.get<{ Querystring: { t?: string } }>(
      UNSUBSCRIBE_PATH,
      { schema: { operationId: 'alertUnsubscribePage', tags: ['monitoring'], summary: 'Confirmation page of an alert mail unsubscribe link', querystring: querySchema } },
      async (request, reply) => {
        const channel = await channelFor(request.query.t);
        if (!channel) return invalid(reply);
        if (!channel.active) return page(reply, 200, deps.brand, `<p>Monitoring alerts to ${escapeHtml(channel.value)} are already stopped.</p>`);
        const action = `${UNSUBSCRIBE_PATH}?t=${encodeURIComponent(request.query.t ?? '')}`;
        return page(
          reply,
          200,
          deps.brand,
          `<p>Stop monitoring alerts to ${escapeHtml(channel.value)}?</p><form method="post" action="${escapeHtml(action)}"><button type="submit">Unsubscribe</button></form>`,
        );
      },
    );
    scope.post<{ Querystring: { t?: string } }>(
      UNSUBSCRIBE_PATH,
      { schema: { operationId: 'alertUnsubscribe', tags: ['monitoring'], summary: 'Disables the email channel of an alert mail (RFC 8058 one-click)', querystring: querySchema } },
      async (request, reply) => {
        const channel = await channelFor(request.query.t);
        if (!channel) return invalid(reply);
        if (channel.active) await disableChannel(deps.db, channel.id, 'email', UNSUBSCRIBED_REASON);
        return page(reply, 200, deps.brand, `<p>Monitoring alerts to ${escapeHtml(channel.value)} are stopped. You can turn them on again on the notification channels page.</p>`);
      },
    );
  });
}
