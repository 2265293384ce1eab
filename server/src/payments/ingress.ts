/**
 * One ingress for every payment provider's events (docs/payments.md, "Provider events"):
 * `POST /webhooks/:provider` checks the signature and timestamp over the raw body first,
 * stores each event once per (provider, event id) and enqueues a `payment-event` job with a
 * deterministic id. The job applies the event in one transaction through the provider's
 * `apply`, which locks the payment row it changes; what must happen after the commit (a
 * websocket message) is returned as callbacks and run only once the transaction committed.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema';
import type { QueueSystem } from '../infra/queues';
import { AppError } from '../infra/errors';
import * as repo from './payments-repository';

/** An event whose signature checked out, as the provider sent it. */
export interface VerifiedEvent {
  eventId: string;
  type: string;
  occurredAt: Date;
  payload: unknown;
}

export interface StoredEvent extends VerifiedEvent {
  provider: string;
}

export type AfterCommit = () => void | Promise<void>;

export interface WebhookProvider {
  /** The `:provider` path segment. */
  readonly name: string;
  /** Checks signature and timestamp over the raw body; throws `webhookRejected()` when they fail. */
  verify(rawBody: Buffer, headers: IncomingHttpHeaders, now: Date): VerifiedEvent[] | Promise<VerifiedEvent[]>;
  /** Applies one event inside `trx`; returns what to do once it committed. */
  apply(trx: Transaction<Database>, event: StoredEvent): Promise<AfterCommit[] | void>;
}

/** A delivery whose signature or timestamp does not check out: 400, nothing stored. */
export function webhookRejected(reason: string): AppError {
  return new AppError(400, 'WEBHOOK_REJECTED', `Webhook rejected: ${reason}`);
}

const MAX_WEBHOOK_BYTES = 256 * 1024;

export function createPaymentIngress(deps: { db: Kysely<Database>; queues: QueueSystem; providers: WebhookProvider[] }) {
  const providers = new Map(deps.providers.map((provider) => [provider.name, provider]));

  /** Stores the events (a duplicate is ignored) and enqueues their processing. */
  async function receive(provider: WebhookProvider, events: VerifiedEvent[]): Promise<void> {
    for (const event of events) {
      // A duplicate delivery returns the stored row: when the first delivery stored the event
      // and then failed to enqueue it, the provider's retry enqueues it now.
      const row = await repo.storeEvent(deps.db, { provider: provider.name, eventId: event.eventId, type: event.type, occurredAt: event.occurredAt, payload: event.payload });
      // Already applied: nothing to do. Otherwise (re-)enqueue: the job id is the same, so a
      // job still queued is not doubled, and the job checks processed_at itself.
      if (row.processed_at) continue;
      // Deterministic per stored event. Not `provider:eventId`: BullMQ on Redis refuses a custom
      // id with ':' (and event ids are the provider's text).
      await deps.queues.enqueue('payment-event', { eventRowId: String(row.id) }, `${provider.name}-event-${row.id}`);
    }
  }

  /** The `payment-event` job: applies one stored event once, in one transaction. */
  async function processEvent(eventRowId: string): Promise<void> {
    const provider = { current: undefined as WebhookProvider | undefined };
    try {
      const after = await deps.db.transaction().execute(async (trx) => {
        const row = await repo.lockEvent(trx, eventRowId);
        if (!row || row.processed_at) return [];
        provider.current = providers.get(row.provider);
        if (!provider.current) throw new Error(`no provider ${row.provider} is configured`);
        const callbacks = await provider.current.apply(trx, {
          provider: row.provider,
          eventId: row.event_id,
          type: row.event_type,
          occurredAt: row.occurred_at,
          payload: row.payload,
        });
        await repo.markEventProcessed(trx, eventRowId);
        return callbacks ?? [];
      });
      for (const callback of after) await callback();
    } catch (error) {
      await repo.markEventFailed(deps.db, eventRowId, String((error as Error).message));
      throw error;
    }
  }

  function register(app: FastifyInstance): void {
    app.register(async (scope) => {
      // The signature covers the exact bytes: keep the body raw, whatever its type.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_WEBHOOK_BYTES }, (_request, body, done) => done(null, body));
      scope.post<{ Params: { provider: string } }>(
        '/webhooks/:provider',
        {
          schema: {
            operationId: 'paymentWebhook',
            tags: ['payments'],
            summary: 'Events of a payment provider (signature checked over the raw body)',
            params: { type: 'object', properties: { provider: { type: 'string', maxLength: 40 } }, required: ['provider'] },
          },
        },
        async (request, reply) => {
          const provider = providers.get(request.params.provider);
          if (!provider) throw new AppError(404, 'NOT_FOUND', 'Not Found');
          const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
          const events = await provider.verify(raw, request.headers, new Date());
          await receive(provider, events);
          return reply.code(200).send({ received: true });
        },
      );
    });
  }

  return { register, processEvent, receive, providers };
}
