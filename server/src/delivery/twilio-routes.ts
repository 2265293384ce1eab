/**
 * Twilio's status callbacks (the StatusCallback of every SMS we send): verified with
 * X-Twilio-Signature over the full URL and the sorted form parameters, then the message's
 * sms_outbox row takes its new status (queued, sent, delivered, undelivered, failed).
 */
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import { verifyTwilioSignature } from './signing';
import { updateSmsStatus } from './sms-repository';
import { TWILIO_STATUS_PATH } from './twilio';

export function registerTwilioRoutes(app: FastifyInstance, deps: { db: Kysely<Database>; publicUrl: string; authToken?: string }): void {
  app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 16 * 1024 }, (_request, body, done) =>
      done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );
    scope.post<{ Body: Record<string, string> }>(
      TWILIO_STATUS_PATH,
      { schema: { operationId: 'twilioStatusCallback', tags: ['monitoring'], summary: 'Twilio SMS status callback (X-Twilio-Signature checked)' } },
      async (request, reply) => {
        if (!deps.authToken) throw Errors.notFound();
        const params = request.body && typeof request.body === 'object' ? request.body : {};
        const signature = request.headers['x-twilio-signature'];
        // Twilio signs the URL it called: the StatusCallback we gave it, {publicUrl}{path}.
        if (typeof signature !== 'string' || !verifyTwilioSignature(deps.authToken, `${deps.publicUrl}${request.url}`, params, signature)) {
          throw Errors.forbidden('invalid signature');
        }
        const sid = params.MessageSid ?? params.SmsSid;
        const status = params.MessageStatus ?? params.SmsStatus;
        if (sid && status) await updateSmsStatus(deps.db, 'twilio', sid, status);
        return reply.code(204).send();
      },
    );
  });
}
