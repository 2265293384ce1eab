/** The sms_outbox table: every SMS sent, whatever the provider, and its newest status. */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';

/** Stores one SMS; its row's id. */
export async function recordSms(
  db: Kysely<Database>,
  sms: { to: string; body: string; provider: string; providerId: string | null; status: string },
): Promise<string> {
  const row = await db
    .insertInto('sms_outbox')
    .values({ to_number: sms.to, body: sms.body, provider: sms.provider, provider_id: sms.providerId, status: sms.status })
    .returning('id')
    .executeTakeFirstOrThrow();
  return String(row.id);
}

/** Twilio's status callback: the newest status of the message with that SID. */
export async function updateSmsStatus(db: Kysely<Database>, provider: string, providerId: string, status: string): Promise<boolean> {
  const result = await db
    .updateTable('sms_outbox')
    .set({ status: status.slice(0, 40), updated: new Date() })
    .where('provider', '=', provider)
    .where('provider_id', '=', providerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
