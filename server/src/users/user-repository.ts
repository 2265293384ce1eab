import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';

type Db = Kysely<Database>;

export async function findOpenUserByEmail(db: Db, email: string) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'password_hash', 'email_verified_at', 'suspended_at'])
    .where(sql`lower(email)`, '=', email.toLowerCase())
    .where('closed_at', 'is', null)
    .executeTakeFirst();
}

export async function findOpenUserById(db: Db, id: string) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'password_hash', 'email_verified_at', 'suspended_at'])
    .where('id', '=', id)
    .where('closed_at', 'is', null)
    .executeTakeFirst();
}

export async function insertUser(db: Db, user: { email: string; passwordHash: string; verified: boolean }): Promise<string | undefined> {
  const row = await db
    .insertInto('users')
    .values({ email: user.email, password_hash: user.passwordHash, email_verified_at: user.verified ? new Date() : null })
    .onConflict((oc) => oc.expression(sql`lower(email)`).where('closed_at', 'is', null).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

export async function markEmailVerified(db: Db, userId: string): Promise<void> {
  await db.updateTable('users').set({ email_verified_at: sql`coalesce(email_verified_at, now())` }).where('id', '=', userId).execute();
}

export async function setPasswordHash(db: Db, userId: string, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
}

export async function closeUser(db: Db, userId: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ closed_at: sql`now()`, api_key_hash: null, api_key_hint: null, api_key_created_at: null })
    .where('id', '=', userId)
    .execute();
}

/** The current-user record /user/info answers with (plus subscription expiry and LE status). */
export async function getCurrentUser(db: Db, userId: string) {
  return db
    .selectFrom('users')
    .select([
      'email',
      'created_at',
      'search_subscribed_until',
      'search_is_recurring',
      'search_credits',
      'whois_credits',
      'is_enterprise',
      'enterprise_until',
      'elevated',
      'law_enforcement',
      'api_key_hint',
      sql<boolean>`exists (select 1 from notifications n where n.user_id = users.id and not n.seen)`.as('has_notifications'),
    ])
    .where('id', '=', userId)
    .where('closed_at', 'is', null)
    .executeTakeFirst();
}

export const NOTIFICATION_SETTINGS = {
  search_expiration: 'notify_search_expiration',
  monitoring_expiration: 'notify_monitoring_expiration',
  enterprise_expiration: 'notify_enterprise_expiration',
  low_search_credits: 'notify_low_search_credits',
  low_whois_credits: 'notify_low_whois_credits',
  store_invoices: 'store_invoices',
  store_extra_invoice_data: 'store_extra_invoice_data',
} as const;
export type NotificationSetting = keyof typeof NOTIFICATION_SETTINGS;

export async function getProfile(db: Db, userId: string) {
  return db
    .selectFrom('users')
    .select([
      'email',
      'is_enterprise',
      'enterprise_until',
      'notify_search_expiration',
      'notify_monitoring_expiration',
      'notify_enterprise_expiration',
      'notify_low_search_credits',
      'notify_low_whois_credits',
      'store_invoices',
      'store_extra_invoice_data',
    ])
    .where('id', '=', userId)
    .where('closed_at', 'is', null)
    .executeTakeFirst();
}

export async function setNotificationSetting(db: Db, userId: string, setting: NotificationSetting, value: boolean): Promise<void> {
  await db
    .updateTable('users')
    .set({ [NOTIFICATION_SETTINGS[setting]]: value })
    .where('id', '=', userId)
    .execute();
}

export async function setApiKey(db: Db, userId: string, keyHash: string, hint: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ api_key_hash: keyHash, api_key_hint: hint, api_key_created_at: sql`now()` })
    .where('id', '=', userId)
    .where('closed_at', 'is', null)
    .execute();
}

export async function getApiKeyHash(db: Db, userId: string): Promise<string | null> {
  const row = await db.selectFrom('users').select('api_key_hash').where('id', '=', userId).executeTakeFirst();
  return row?.api_key_hash ?? null;
}

export interface Grant {
  verified?: boolean;
  searchDays?: number;
  searchCredits?: number;
  whoisCredits?: number;
  enterprise?: boolean;
  elevated?: boolean;
  lawEnforcement?: boolean;
}

/** Operator grants: days extend the subscription from now or its current end, credits add. */
export async function applyGrant(db: Db, userId: string, grant: Grant): Promise<void> {
  const { verified, searchDays, searchCredits, whoisCredits, enterprise, elevated, lawEnforcement } = grant;
  if (!(verified || searchDays || searchCredits || whoisCredits || enterprise || elevated || lawEnforcement)) return;
  await db
    .updateTable('users')
    .set((eb) => ({
      ...(grant.verified ? { email_verified_at: sql`coalesce(email_verified_at, now())` } : {}),
      ...(grant.searchDays
        ? {
            search_subscribed_until: sql`greatest(coalesce(search_subscribed_until, now()), now()) + make_interval(days => ${grant.searchDays})`,
          }
        : {}),
      ...(grant.searchCredits ? { search_credits: eb('search_credits', '+', grant.searchCredits) } : {}),
      ...(grant.whoisCredits ? { whois_credits: eb('whois_credits', '+', grant.whoisCredits) } : {}),
      ...(grant.enterprise ? { is_enterprise: true } : {}),
      ...(grant.elevated ? { elevated: true } : {}),
      ...(grant.lawEnforcement ? { law_enforcement: true } : {}),
    }))
    .where('id', '=', userId)
    .execute();
}
