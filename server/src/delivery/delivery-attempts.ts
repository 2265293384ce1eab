/**
 * One attempt of an alert through its channel's kind (docs/monitoring.md "Delivery"), each
 * recorded (status, time, error) and answered as an outcome for the `deliver` job to decide
 * on: a webhook's signed POST (410: the channel is to be disabled), the alert mail with
 * List-Unsubscribe, an SMS (a permanent refusal is not retried).
 */
import type { Kysely } from 'kysely';
import type { Agent } from 'undici';
import type { Config } from '../config';
import type { Database } from '../db/schema';
import { type MailService, MailTemplates } from '../mail/mail-service';
import { sendWebhook } from './webhook-sender';
import { PermanentSmsError, type SmsProvider } from './sms';
import * as repo from './delivery-repository';

export type Outcome = { ok: true } | { ok: false; error: string; retryAfterMs?: number; final?: 'disable' | 'refused' };

/** The channel of a delivery, as it is now. */
export type DeliveryChannel = NonNullable<repo.DeliveryToSend['channel']>;

/** What the attempts are given; each takes the part it uses. */
export interface AttemptDeps {
  db: Kysely<Database>;
  config: Config;
  mail: MailService;
  sms: SmsProvider;
  /** The connection pool of webhook calls (the SSRF guard at connect). */
  agent: Agent;
  userAgent: string;
  reportUrl(reportId: string): string;
  unsubscribeUrl(channelId: string): string;
}

async function attemptWebhook(deps: Pick<AttemptDeps, 'db' | 'config' | 'agent' | 'userAgent'>, delivery: repo.DeliveryToSend, channel: DeliveryChannel, n: number): Promise<Outcome> {
  const body = JSON.stringify({ id: delivery.reportId, breach_id: delivery.reportId, type: 'report', timestamp: new Date().toISOString() });
  const result = await sendWebhook({
    url: channel.value,
    secret: channel.secret ?? '',
    id: delivery.id,
    body,
    timeoutMs: deps.config.WEBHOOK_TIMEOUT_MS,
    dispatcher: deps.agent,
    userAgent: deps.userAgent,
  });
  await repo.recordAttempt(deps.db, delivery.id, { n, httpStatus: result.status, ms: result.ms, error: result.error });
  if (result.error === null) return { ok: true };
  if (result.status === 410) return { ok: false, error: result.error, final: 'disable' };
  return { ok: false, error: result.error, ...(result.retryAfterMs !== undefined ? { retryAfterMs: result.retryAfterMs } : {}) };
}

async function attemptEmail(deps: Pick<AttemptDeps, 'db' | 'config' | 'mail' | 'reportUrl' | 'unsubscribeUrl'>, delivery: repo.DeliveryToSend, channel: DeliveryChannel, n: number): Promise<Outcome> {
  const started = Date.now();
  const unsubscribe = deps.unsubscribeUrl(channel.id);
  const mail = MailTemplates.monitoringAlert(channel.value, deps.config.BRAND, {
    url: deps.reportUrl(delivery.reportId),
    wellName: delivery.report.wellName,
    results: delivery.report.results,
    unsubscribeUrl: unsubscribe,
  });
  try {
    await deps.mail.send({ ...mail, headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } });
  } catch (error) {
    const message = `mail not queued: ${(error as Error).message}`;
    await repo.recordAttempt(deps.db, delivery.id, { n, httpStatus: null, ms: Date.now() - started, error: message });
    return { ok: false, error: message };
  }
  await repo.recordAttempt(deps.db, delivery.id, { n, httpStatus: null, ms: Date.now() - started, error: null });
  return { ok: true };
}

async function attemptSms(deps: Pick<AttemptDeps, 'db' | 'config' | 'sms' | 'reportUrl'>, delivery: repo.DeliveryToSend, channel: DeliveryChannel, n: number): Promise<Outcome> {
  const started = Date.now();
  const text = `${deps.config.BRAND}: your monitoring found ${delivery.report.results} new record(s) in ${delivery.report.wellName}. ${deps.reportUrl(delivery.reportId)}`;
  try {
    await deps.sms.send(channel.value, text);
  } catch (error) {
    const message = (error as Error).message;
    await repo.recordAttempt(deps.db, delivery.id, { n, httpStatus: null, ms: Date.now() - started, error: message });
    return { ok: false, error: message, ...(error instanceof PermanentSmsError ? { final: 'refused' as const } : {}) };
  }
  await repo.recordAttempt(deps.db, delivery.id, { n, httpStatus: null, ms: Date.now() - started, error: null });
  return { ok: true };
}

/** Attempt `n` (from 1) of the delivery, through its kind of channel. */
export function attemptDelivery(deps: AttemptDeps, delivery: repo.DeliveryToSend, channel: DeliveryChannel, n: number): Promise<Outcome> {
  if (delivery.kind === 'webhook') return attemptWebhook(deps, delivery, channel, n);
  if (delivery.kind === 'email') return attemptEmail(deps, delivery, channel, n);
  return attemptSms(deps, delivery, channel, n);
}
