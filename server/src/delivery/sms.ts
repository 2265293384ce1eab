/**
 * SMS alerts go through a provider. `outbox` (the default) keeps them in the sms_outbox
 * table, as mail without SMTP stays in the outbox; `twilio` sends through Twilio's REST
 * API (twilio.ts). Every SMS, whatever the provider, has its sms_outbox row, whose status
 * Twilio's signed status callbacks keep up to date.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { recordSms } from './sms-repository';

export interface SmsResult {
  /** The sms_outbox row. */
  id: string;
  /** The provider's id of the message (Twilio's SID), when it has one. */
  providerId: string | null;
}

/** A send that must not be retried (the provider refused the message itself). */
export class PermanentSmsError extends Error {}

export interface SmsProvider {
  readonly name: string;
  send(to: string, body: string): Promise<SmsResult>;
}

export function createOutboxSmsProvider(db: Kysely<Database>): SmsProvider {
  return {
    name: 'outbox',
    async send(to, body) {
      const id = await recordSms(db, { to, body, provider: 'outbox', providerId: null, status: 'stored' });
      return { id, providerId: null };
    },
  };
}
