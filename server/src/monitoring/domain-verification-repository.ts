/**
 * SQL of domain verification (docs/monitoring.md "Domain verification"): one row per account and
 * domain with its token, how and when it was verified, and the pending role-address mail.
 */
import { sql, type Kysely } from 'kysely';
import type { Database, DomainVerificationsTable } from '../db/schema';
import type { DomainVerificationMethod } from '../common/monitoring-wire';

type Db = Kysely<Database>;

/** How long a verification holds; after it, values are hidden until the domain is checked again. */
export const VERIFICATION_VALID_DAYS = 365;

export type VerificationRow = Pick<DomainVerificationsTable, 'domain' | 'token' | 'method' | 'verified_at' | 'mail_address' | 'mail_expires_at'>;

const COLUMNS = ['domain', 'token', 'method', 'verified_at', 'mail_address', 'mail_expires_at'] as const;

/** The distinct (normalised) domains of the user's domain tasks, active or paused. */
export async function taskDomains(db: Db, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('monitor_tasks')
    .select('match_value')
    .distinct()
    .where('user_id', '=', userId)
    .where('kind', '=', 'domain')
    .orderBy('match_value')
    .execute();
  return rows.map((r) => r.match_value);
}

/**
 * The rows of these domains, each created with a new token when missing (a token is made
 * once per account and domain and stays, so a published record keeps working).
 */
export async function ensureRows(db: Db, userId: string, domains: string[], newToken: () => string): Promise<VerificationRow[]> {
  if (domains.length === 0) return [];
  await db
    .insertInto('domain_verifications')
    .values(domains.map((domain) => ({ user_id: userId, domain, token: newToken() })))
    .onConflict((oc) => oc.columns(['user_id', 'domain']).doNothing())
    .execute();
  return db.selectFrom('domain_verifications').select(COLUMNS).where('user_id', '=', userId).where('domain', 'in', domains).orderBy('domain').execute();
}

/** The user's domains verified within VERIFICATION_VALID_DAYS (check on read: no job expires them). */
export async function verifiedDomains(db: Db, userId: string): Promise<{ domain: string; method: DomainVerificationMethod; verified_at: Date }[]> {
  const rows = await db
    .selectFrom('domain_verifications')
    .select(['domain', 'method', 'verified_at'])
    .where('user_id', '=', userId)
    .where('verified_at', '>', sql<Date>`now() - make_interval(days => ${VERIFICATION_VALID_DAYS})`)
    .execute();
  return rows.map((r) => ({ domain: r.domain, method: r.method!, verified_at: r.verified_at! }));
}

/**
 * Marks a domain verified for the user now (a check that found the token, a confirmed mail,
 * the operator's override); creates the row when missing. The one writer of `verified_at`.
 */
export async function markVerified(db: Db, input: { userId: string; domain: string; method: DomainVerificationMethod; newToken: () => string }): Promise<void> {
  await db
    .insertInto('domain_verifications')
    .values({ user_id: input.userId, domain: input.domain, token: input.newToken(), method: input.method, verified_at: sql<Date>`now()`, checked_at: sql<Date>`now()` })
    .onConflict((oc) =>
      oc.columns(['user_id', 'domain']).doUpdateSet({ method: input.method, verified_at: sql<Date>`now()`, checked_at: sql<Date>`now()`, mail_token_hash: null, mail_expires_at: null }),
    )
    .execute();
}

/** A check that found nothing: only its time is kept (a past verification stays until it expires). */
export async function markChecked(db: Db, userId: string, domain: string): Promise<void> {
  await db.updateTable('domain_verifications').set({ checked_at: sql<Date>`now()` }).where('user_id', '=', userId).where('domain', '=', domain).execute();
}

/** A role-address mail was sent: its link's token (hashed), the address, the expiry; a newer mail replaces an older one. */
export async function setMailToken(db: Db, input: { userId: string; domain: string; address: string; tokenHash: string; validMinutes: number }): Promise<void> {
  await db
    .updateTable('domain_verifications')
    .set({ mail_address: input.address, mail_token_hash: input.tokenHash, mail_expires_at: sql<Date>`now() + make_interval(mins => ${input.validMinutes})` })
    .where('user_id', '=', input.userId)
    .where('domain', '=', input.domain)
    .execute();
}

/** The pending mail of a link token (hashed) still valid: whose and which domain. */
export async function findMailToken(db: Db, tokenHash: string) {
  return db
    .selectFrom('domain_verifications')
    .select(['user_id', 'domain', 'mail_address'])
    .where('mail_token_hash', '=', tokenHash)
    .where('mail_expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

/** Uses a link token once: verifies its domain and forgets the token, in one statement. Undefined when unknown, used or expired. */
export async function confirmMailToken(db: Db, tokenHash: string) {
  return db
    .updateTable('domain_verifications')
    .set({ method: 'email', verified_at: sql<Date>`now()`, checked_at: sql<Date>`now()`, mail_token_hash: null, mail_expires_at: null })
    .where('mail_token_hash', '=', tokenHash)
    .where('mail_expires_at', '>', sql<Date>`now()`)
    .returning(['user_id', 'domain', 'mail_address'])
    .executeTakeFirst();
}
