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
 */
import type { Kysely } from 'kysely';
import { UnrecoverableError } from 'bullmq';
import type { Agent } from 'undici';
import type { Config } from '../config';
import type { Database } from '../db/schema';
import { type MailService, MailTemplates } from '../mail/mail-service';
import { guardedAgent } from '../infra/ssrf';
import { sendWebhook } from './webhook-sender';
import { unsubscribeKey, unsubscribeToken } from './signing';
import { createOutboxSmsProvider, PermanentSmsError, type SmsProvider } from './sms';
import { createTwilioSmsProvider, TWILIO_STATUS_PATH } from './twilio';
import * as repo from './delivery-repository';
import { createChannelConfirmations } from '../monitoring/monitoring-service';

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

/** How a channel is named to its owner: a webhook by its origin only (paths and queries may hold tokens). */
export function describeChannel(kind: string, target: string): string {
  if (kind === 'webhook') {
    try {
      return `webhook ${new URL(target).origin}`;
    } catch {
      return 'webhook';
    }
  }
  return kind === 'phone' ? `phone ${target}` : `email ${target}`;
}

type Outcome = { ok: true } | { ok: false; error: string; retryAfterMs?: number; final?: 'disable' | 'refused' };

export interface DeliveryService {
  /** The job processor; `attempt` counts from 1. */
  process(deliveryId: string, attempt: number): Promise<void>;
  unsubscribeUrl(channelId: string): string;
  close(): Promise<void>;
}

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
  onOutcome?: (channel: string, outcome: 'sent' | 'retry' | 'failed' | 'skipped') => void;
}): DeliveryService {
  const { db, config } = deps;
  const told = deps.onOutcome ?? (() => {});
  const agent = deps.agent ?? guardedAgent({ allowPrivate: config.WEBHOOK_ALLOW_PRIVATE, connectTimeoutMs: config.WEBHOOK_TIMEOUT_MS, webhookPorts: true });
  const sms = deps.sms ?? createSmsProvider(db, config);
  const key = unsubscribeKey(deps.serverSecret);
  const attempts = webhookRetryDelays(config).length;
  const userAgent = `${config.BRAND.replace(/\s+/g, '')}-Webhooks/1.0`;
  const reportUrl = (reportId: string) => `${config.publicUrl}/monitoring/reports/${reportId}`;
  const confirmations = createChannelConfirmations({ db, mail: deps.mail, config });
  const unsubscribeUrl = (channelId: string) => `${config.publicUrl}${UNSUBSCRIBE_PATH}?t=${unsubscribeToken(key, channelId)}`;

  async function attemptWebhook(delivery: repo.DeliveryToSend, channel: NonNullable<repo.DeliveryToSend['channel']>, n: number): Promise<Outcome> {
    const body = JSON.stringify({ id: delivery.reportId, breach_id: delivery.reportId, type: 'report', timestamp: new Date().toISOString() });
    const result = await sendWebhook({
      url: channel.value,
      secret: channel.secret ?? '',
      id: delivery.id,
      body,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      dispatcher: agent,
      userAgent,
    });
    await repo.recordAttempt(db, delivery.id, { n, httpStatus: result.status, ms: result.ms, error: result.error });
    if (result.error === null) return { ok: true };
    if (result.status === 410) return { ok: false, error: result.error, final: 'disable' };
    return { ok: false, error: result.error, ...(result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {}) };
  }

  async function attemptEmail(delivery: repo.DeliveryToSend, channel: NonNullable<repo.DeliveryToSend['channel']>, n: number): Promise<Outcome> {
    const started = Date.now();
    const unsubscribe = unsubscribeUrl(channel.id);
    const mail = MailTemplates.monitoringAlert(channel.value, config.BRAND, {
      url: reportUrl(delivery.reportId),
      wellName: delivery.report.wellName,
      results: delivery.report.results,
      unsubscribeUrl: unsubscribe,
    });
    try {
      await deps.mail.send({ ...mail, headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } });
    } catch (error) {
      const message = `mail not queued: ${(error as Error).message}`;
      await repo.recordAttempt(db, delivery.id, { n, httpStatus: null, ms: Date.now() - started, error: message });
      return { ok: false, error: message };
    }
    await repo.recordAttempt(db, delivery.id, { n, httpStatus: null, ms: Date.now() - started, error: null });
    return { ok: true };
  }

  async function attemptSms(delivery: repo.DeliveryToSend, channel: NonNullable<repo.DeliveryToSend['channel']>, n: number): Promise<Outcome> {
    const started = Date.now();
    const text = `${config.BRAND}: your monitoring found ${delivery.report.results} new record(s) in ${delivery.report.wellName}. ${reportUrl(delivery.reportId)}`;
    try {
      await sms.send(channel.value, text);
    } catch (error) {
      const message = (error as Error).message;
      await repo.recordAttempt(db, delivery.id, { n, httpStatus: null, ms: Date.now() - started, error: message });
      return { ok: false, error: message, ...(error instanceof PermanentSmsError ? { final: 'refused' as const } : {}) };
    }
    await repo.recordAttempt(db, delivery.id, { n, httpStatus: null, ms: Date.now() - started, error: null });
    return { ok: true };
  }

  async function giveUp(delivery: repo.DeliveryToSend, reason: string, channelDisabled: boolean): Promise<void> {
    const target = delivery.channel?.value || delivery.target;
    const channel = describeChannel(delivery.kind, target);
    const notice = channelDisabled
      ? `An alert could not be delivered to your ${channel}, which answered 410 Gone: the channel was disabled.`
      : `An alert could not be delivered to your ${channel} after ${attempts} attempts (last error: ${reason}).`;
    const becameDead = await repo.markDead(db, { id: delivery.id, userId: delivery.userId, channelId: delivery.channel?.id ?? null, reportId: delivery.reportId }, reason, notice);
    // The owner's account address, unless the failed channel is that very address.
    if (becameDead && !(delivery.kind === 'email' && target.toLowerCase() === delivery.userEmail.toLowerCase())) {
      await deps.mail.send(MailTemplates.deliveryFailed(delivery.userEmail, config.BRAND, channel, channelDisabled ? 'it answered 410 Gone and was disabled' : reason, reportUrl(delivery.reportId)));
    }
  }

  return {
    unsubscribeUrl,
    async process(deliveryId, attempt) {
      const delivery = await repo.loadDelivery(db, deliveryId);
      if (!delivery || delivery.status !== 'pending') return;
      if (delivery.userSuspended) {
        // Suspended by an operator (user:suspend): monitoring is paused, no alert leaves.
        await repo.markDead(db, { id: delivery.id, userId: delivery.userId, channelId: null, reportId: delivery.reportId }, 'account suspended', null);
        return;
      }
      const channel = delivery.channel;
      if (!channel || !channel.active || channel.value === '') {
        // Deleted or turned off since the fan-out: nothing to send, nobody to tell.
        await repo.markDead(db, { id: delivery.id, userId: delivery.userId, channelId: null, reportId: delivery.reportId }, 'channel removed or disabled', null);
        told(delivery.kind, 'skipped');
        return;
      }
      if (delivery.kind === 'email' && channel.verifiedAt === null) {
        // Not confirmed: skipped, not failed (channelId null: the fail streak stays).
        if (!channel.confirmSentAt) await confirmations.send(channel);
        await repo.markDead(db, { id: delivery.id, userId: delivery.userId, channelId: null, reportId: delivery.reportId }, AWAITING_CONFIRMATION_SKIP, null);
        told(delivery.kind, 'skipped');
        return;
      }
      let outcome: Outcome;
      if (delivery.kind === 'webhook') outcome = await attemptWebhook(delivery, channel, attempt);
      else if (delivery.kind === 'email') outcome = await attemptEmail(delivery, channel, attempt);
      else outcome = await attemptSms(delivery, channel, attempt);

      if (outcome.ok) {
        await repo.markSent(db, delivery.id, channel.id);
        told(delivery.kind, 'sent');
        return;
      }
      if (outcome.final === 'disable') {
        await repo.disableChannel(db, channel.id, delivery.kind, 'The webhook endpoint answered 410 Gone');
        await giveUp(delivery, outcome.error, true);
        told(delivery.kind, 'failed');
        throw new UnrecoverableError(outcome.error);
      }
      if (outcome.final === 'refused' || attempt >= attempts) {
        await giveUp(delivery, outcome.error, false);
        told(delivery.kind, 'failed');
        throw new UnrecoverableError(outcome.error);
      }
      told(delivery.kind, 'retry');
      throw new RetryDeliveryError(outcome.error, outcome.retryAfterMs);
    },
    async close() {
      await agent.close();
    },
  };
}
