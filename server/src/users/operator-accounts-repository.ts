/** The SQL of the operators' account commands (operator-accounts.ts holds what each does). */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema';

type Db = Kysely<Database>;

/** Accounts (closed ones too), newest first, with their newest session's start; `query` matches a part of the email, case-insensitively. */
export async function listAccountRows(db: Db, options: { query?: string; limit?: number }) {
  let q = db
    .selectFrom('users as u')
    .select([
      'u.id',
      'u.email',
      'u.created_at',
      'u.email_verified_at',
      'u.closed_at',
      'u.search_subscribed_until',
      'u.is_enterprise',
      'u.enterprise_until',
      'u.elevated',
      'u.law_enforcement',
      'u.law_enforcement_reference',
      'u.search_credits',
      'u.whois_credits',
      'u.search_barred',
      'u.suspended_at',
      'u.suspended_reason',
      sql<Date | null>`(select max(s.created_at) from sessions s where s.user_id = u.id)`.as('last_sign_in'),
    ])
    .orderBy('u.created_at', 'desc')
    .orderBy('u.id');
  if (options.query) {
    const pattern = `%${options.query.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where(sql<boolean>`lower(u.email) like ${pattern}`);
  }
  if (options.limit) q = q.limit(options.limit);
  return q.execute();
}

/** The open account with this email, its row locked for the change; undefined when none. */
export async function lockOpenAccount(trx: Transaction<Database>, email: string) {
  return trx
    .selectFrom('users')
    .select(['id', 'email', 'suspended_at', 'law_enforcement', 'law_enforcement_reference'])
    .where(sql`lower(email)`, '=', email.trim().toLowerCase())
    .where('closed_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
}

/** Sets (with who and why) or lifts a suspension. */
export async function setSuspended(trx: Transaction<Database>, userId: string, suspension: { reason: string; by: string } | null): Promise<void> {
  await trx
    .updateTable('users')
    .set(suspension ? { suspended_at: sql`now()`, suspended_reason: suspension.reason, suspended_by: suspension.by } : { suspended_at: null, suspended_reason: null, suspended_by: null })
    .where('id', '=', userId)
    .execute();
}

/** Law-enforcement status resting on `reference`, or none (reference null); who set it and when are kept. */
export async function setLawEnforcement(trx: Transaction<Database>, userId: string, change: { reference: string | null; by: string }): Promise<void> {
  await trx
    .updateTable('users')
    .set({ law_enforcement: change.reference !== null, law_enforcement_reference: change.reference, law_enforcement_set_by: change.by, law_enforcement_set_at: sql`now()` })
    .where('id', '=', userId)
    .execute();
}
