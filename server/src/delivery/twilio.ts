/**
 * Twilio's Messages API (SMS_PROVIDER=twilio): POST {TWILIO_API_URL}/2010-04-01/Accounts/
 * {Sid}/Messages.json, form-encoded To, From (or MessagingServiceSid for an MG… sender),
 * Body and StatusCallback, Basic auth with the account SID and auth token. The base URL
 * is a setting so tests run a stub on loopback.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { PermanentSmsError, type SmsProvider } from './sms';
import { recordSms } from './sms-repository';

export const TWILIO_STATUS_PATH = '/webhooks/twilio/status';

export interface TwilioSettings {
  apiUrl: string;
  accountSid: string;
  authToken: string;
  from: string;
  /** Where Twilio posts status changes: {publicUrl}/webhooks/twilio/status. */
  statusCallback: string;
  timeoutMs: number;
}

export function createTwilioSmsProvider(db: Kysely<Database>, settings: TwilioSettings): SmsProvider {
  const endpoint = `${settings.apiUrl.replace(/\/+$/, '')}/2010-04-01/Accounts/${encodeURIComponent(settings.accountSid)}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${settings.accountSid}:${settings.authToken}`).toString('base64')}`;
  return {
    name: 'twilio',
    async send(to, body) {
      // Phone channels hold digits (common/monitoring-rules.ts); Twilio wants E.164.
      const form = new URLSearchParams({ To: to.startsWith('+') ? to : `+${to}`, Body: body, StatusCallback: settings.statusCallback });
      form.set(/^MG[0-9a-f]{32}$/i.test(settings.from) ? 'MessagingServiceSid' : 'From', settings.from);
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        signal: AbortSignal.timeout(settings.timeoutMs),
        redirect: 'manual',
      });
      const text = (await response.text()).slice(0, 4096);
      let answer: { sid?: string; status?: string; message?: string; code?: number } = {};
      try {
        answer = JSON.parse(text) as typeof answer;
      } catch {
        /* not JSON: reported by status below */
      }
      if (!response.ok || !answer.sid) {
        const reason = `Twilio answered ${response.status}${answer.code ? ` (code ${answer.code})` : ''}${answer.message ? `: ${answer.message}` : ''}`.slice(0, 300);
        // A 4xx other than throttling is the message itself being refused: retrying won't help.
        if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) throw new PermanentSmsError(reason);
        throw new Error(reason);
      }
      const id = await recordSms(db, { to, body, provider: 'twilio', providerId: answer.sid, status: answer.status ?? 'queued' });
      return { id, providerId: answer.sid };
    },
  };
}
