/**
 * The `deliver` job: one alert (a deliveries row) to its channel. Retries are the queue's
 * (infra/queues.ts: WEBHOOK_RETRY_DELAYS_MS gives the attempts and the waits); this
 * module only decides, per attempt, sent / retry / give up, and logs every attempt.
 *
 * Sends go to the channel's current value (deliveries.target keeps the one at fan-out).
 *
 * - webhook: a Standard Webhooks signed POST; the delivery id is the webhook-id on every
 *   retry. 2xx sent; 410 disables the channel and stops; anything else is retried.
 * - email: the alert mail through the mail service (outbox + `mail` queue, SMTP when set),
 *   with List-Unsubscribe (a signed link that disables this email channel) and
 *   List-Unsubscribe-Post (RFC 8058 one-click).
 * - phone: an SMS through the configured provider (sms.ts).
 *
 * An email channel awaiting confirmation (monitoring/channels-confirmation.ts) gets nothing:
 * its delivery is skipped (dead with `last_error` 'skipped: …', no attempt, no notice, no
 * mail to the owner, and the channel's fail_streak does not grow). A channel never mailed a
 * confirmation link (one from before confirmations existed) is mailed one then.
 *
 * After the last attempt the delivery is dead: an inbox notice (`delivery-failed`), a mail
 * to the account address, and the channel's fail_streak grows (a success resets it).
 *
 * The attempts per kind are delivery-attempts.ts, giving up is delivery-failure.ts.
 */
import type { Kysely } from 'kysely';
import { UnrecoverableError } from 'bullmq';
import type { Agent } from 'undici';
import type { Config } from '../config';
import type { Database } from '../db/schema';
import type { MailService } from '../mail/mail-service';
import { guardedAgent } from '../infra/ssrf';
import { unsubscribeKey, unsubscribeToken } from './signing';
import { createOutboxSmsProvider, type SmsProvider } from './sms';
import { createTwilioSmsProvider, TWILIO_STATUS_PATH } from './twilio';
import * as repo from './delivery-repository';
import { attemptDelivery, type AttemptDeps, type DeliveryChannel, type Outcome } from './delivery-attempts';
import { giveUp, type GiveUpDeps } from './delivery-failure';
import { createChannelConfirmations, type ChannelConfirmations } from '../monitoring/monitoring-service';

export { describeChannel } from './delivery-failure';

export const AWAITING_CONFIRMATION_SKIP = 'skipped: the email channel awaits confirmation';

export const UNSUBSCRIBE_PATH = '/monitoring/unsubscribe';

/** WEBHOOK_RETRY_DELAYS_MS as numbers: the wait before each attempt; its length is the number of attempts. */
export function webhookRetryDelays(config: Pick<Config, 'WEBHOOK_RETRY_DELAYS_MS'>): number[] {
  return config.WEBHOOK_RETRY_DELAYS_MS.split(',').map((s) => Number(s.trim()));
}

/** A failed attempt to be retried; the queue waits at least `retryAfterMs` when given. */
export class RetryDeliveryError extends Error {
  constructor(
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'RetryDeliveryError';
  }
}

export function createSmsProvider(db: Kysely<Database>, config: Config): SmsProvider {
  if (config.SMS_PROVIDER !== 'twilio') return createOutboxSmsProvider(db);
  if (!config.TWILIO_ACCOUNT_SID || !config.TWILIO_AUTH_TOKEN || !config.TWILIO_FROM) {
    throw new Error('SMS_PROVIDER=twilio needs TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM');
  }
  return createTwilioSmsProvider(db, {
    apiUrl: config.TWILIO_API_URL,
    accountSid: config.TWILIO_ACCOUNT_SID,
    authToken: config.TWILIO_AUTH_TOKEN,
    from: config.TWILIO_FROM,
    statusCallback: `${config.publicUrl}${TWILIO_STATUS_PATH}`,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
  });
}

export interface DeliveryService {
  /** The job processor; `attempt` counts from 1. */
  process(deliveryId: string, attempt: number): Promise<void>;
  unsubscribeUrl(channelId: string): string;
  close(): Promise<void>;
}

type Told = (channel: string, outcome: 'sent' | 'retry' | 'failed' | 'skipped') => void;

/** What processing a delivery is given, made once by createDeliveryService. */
type DeliveryContext = AttemptDeps & GiveUpDeps & { confirmations: ChannelConfirmations; told: Told };

export function createDeliveryService(deps: {
  db: Kysely<Database>;
  config: Config;
  mail: MailService;
  /** A server secret the unsubscribe tokens' key is derived from. */
  serverSecret: string;
  sms?: SmsProvider;
  /** The connection pool of webhook calls (the SSRF guard at connect); tests inject a resolver through it. */
  agent?: Agent;
  /** Told each attempt's outcome by channel kind (the metrics). */
  onOutcome?: Told;
}): DeliveryService {
  const { db, config, mail } = deps;
  const key = unsubscribeKey(deps.serverSecret);
  const unsubscribeUrl = (channelId: string) => `${config.publicUrl}${UNSUBSCRIBE_PATH}?t=${unsubscribeToken(key, channelId)}`;
  const context: DeliveryContext = {
    db,
    config,
    mail,
    told: deps.onOutcome ?? (() => {}),
    agent: deps.agent ?? guardedAgent({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE, connectTimeoutMs: config.WEBHOOK_TIMEOUT_MS, webhookPorts: true }),
    sms: deps.sms ?? createSmsProvider(db, config),
    attempts: webhookRetryDelays(config).length,
    userAgent: `${config.BRAND.replace(/\s+/g, '')}-Webhooks/1.0`,
    reportUrl: (reportId: string) => `${config.publicUrl}/monitoring/reports/${reportId}`,
    confirmations: createChannelConfirmations({ db, mail, config }),
    unsubscribeUrl,
  };
  return {
    unsubscribeUrl,
    process: (deliveryId, attempt) => processDelivery(context, deliveryId, attempt),
    async close() {
      await context.agent.close();
    },
  };
}

async function processDelivery(context: DeliveryContext, deliveryId: string, attempt: number): Promise<void> {
  const delivery = await repo.loadDelivery(context.db, deliveryId);
  if (!delivery || delivery.status !== 'pending') return;
  const channel = await channelToSend(context, delivery);
  if (!channel) return;
  const outcome = await attemptDelivery(context, delivery, channel, attempt);
  await settle(context, delivery, channel, outcome, attempt);
}

/** The channel to send to; undefined when the delivery is dropped unsent (dead, no attempt, no notice). */
async function channelToSend(context: DeliveryContext, delivery: repo.DeliveryToSend): Promise<DeliveryChannel | undefined> {
  const drop = (reason: string) => repo.markDead(context.db, { id: delivery.id, userId: delivery.userId, channelId: null, reportId: delivery.reportId }, reason, null);
  if (delivery.userSuspended) {
    // Suspended by an operator (user:suspend): monitoring is paused, no alert leaves.
    await drop('account suspended');
    return undefined;
  }
  const channel = delivery.channel;
  if (!channel || !channel.active || channel.value === '') {
    // Deleted or turned off since the fan-out: nothing to send, nobody to tell.
    await drop('channel removed or disabled');
    context.told(delivery.kind, 'skipped');
    return undefined;
  }
  if (delivery.kind === 'email' && channel.verifiedAt === null) {
    // Not confirmed: skipped, not failed (channelId null: the fail streak stays).
    if (!channel.confirmSentAt) await context.confirmations.send(channel);
    await drop(AWAITING_CONFIRMATION_SKIP);
    context.told(delivery.kind, 'skipped');
    return undefined;
  }
  return channel;
}

/** After an attempt: sent; or given up (410, a permanent refusal, the last attempt); or retried by the queue. */
async function settle(context: DeliveryContext, delivery: repo.DeliveryToSend, channel: DeliveryChannel, outcome: Outcome, attempt: number): Promise<void> {
  if (outcome.ok) {
    await repo.markSent(context.db, delivery.id, channel.id);
    context.told(delivery.kind, 'sent');
    return;
  }
  if (outcome.final === 'disable') {
    await repo.disableChannel(context.db, channel.id, delivery.kind, 'The webhook endpoint answered 410 Gone');
    await giveUp(context, delivery, outcome.error, true);
    context.told(delivery.kind, 'failed');
    throw new UnrecoverableError(outcome.error);
  }
  if (outcome.final === 'refused' || attempt >= context.attempts) {
    await giveUp(context, delivery, outcome.error, false);
    context.told(delivery.kind, 'failed');
    throw new UnrecoverableError(outcome.error);
  }
  context.told(delivery.kind, 'retry');
  throw new RetryDeliveryError(outcome.error, outcome.retryAfterMs);
}
