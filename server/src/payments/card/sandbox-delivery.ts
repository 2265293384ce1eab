/**
 * How the sandbox sends an event: built as Paddle's envelope, signed like Paddle (`ts:body`
 * HMAC-SHA256) with the sandbox secret and enqueued on `sandbox-webhook`, whose job POSTs it
 * to `/webhooks/sandbox`.
 *
 * The secret is SANDBOX_WEBHOOK_SECRET (comma-separated: all verify, the first signs) or one
 * generated once and kept in the database, so every instance and the admin CLI share it.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../../config';
import type { Database } from '../../db/schema';
import type { QueueSystem } from '../../infra/queues';
import { loadOrCreateSecret } from '../../infra/secrets';
import { paddleSignature } from './paddle-format';
import { randomId } from './sandbox-events';

export interface SandboxDelivery {
  /** The secrets that verify (the first signs). */
  secrets(): Promise<string[]>;
  /** Signs `event` like Paddle; returns the body and headers to POST. */
  sign(event: object, now?: Date): Promise<{ body: string; headers: Record<string, string> }>;
  /** Builds the envelope, signs it and enqueues its delivery (job id = event id). */
  deliver(eventType: string, data: Record<string, unknown>): Promise<{ eventId: string }>;
}

export function createSandboxDelivery(deps: { config: Config; db: Kysely<Database>; queues: QueueSystem }): SandboxDelivery {
  const secrets = sandboxSecrets(deps);

  async function sign(event: object, now = new Date()) {
    const [secret] = await secrets();
    const body = JSON.stringify(event);
    return { body, headers: { 'content-type': 'application/json', 'paddle-signature': paddleSignature(secret!, Math.floor(now.getTime() / 1000), body) } };
  }

  async function deliver(eventType: string, data: Record<string, unknown>): Promise<{ eventId: string }> {
    const now = new Date();
    const eventId = randomId('evt_sbx_');
    const event = { event_id: eventId, event_type: eventType, occurred_at: now.toISOString(), notification_id: randomId('ntf_sbx_'), data };
    await deps.queues.enqueue('sandbox-webhook', await sign(event, now), eventId);
    return { eventId };
  }

  return { secrets, sign, deliver };
}

/** The configured secrets, else the stored one, read once (a failed read is tried again). */
function sandboxSecrets(deps: { config: Config; db: Kysely<Database> }): () => Promise<string[]> {
  let secretsPromise: Promise<string[]> | undefined;
  return () => {
    const configured = deps.config.card.sandboxWebhookSecrets;
    if (configured.length > 0) return Promise.resolve(configured);
    secretsPromise ??= loadOrCreateSecret(deps.db, 'sandbox-webhook').then(
      (secret) => [secret],
      (error: unknown) => {
        secretsPromise = undefined;
        throw error;
      },
    );
    return secretsPromise;
  };
}
