/**
 * What operators do to accounts from the CLI (`npm run admin -- user:list | user:suspend |
 * user:unsuspend | user:set-le | user:unset-le`, scripts/admin/accounts.ts). Each change and
 * its audit entry are one transaction. The decisions are in docs/operator-commands.md.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema';
import { recordAudit } from '../audit/audit-service';
import { revokeUserSessions } from '../auth/tokens-service';

type Db = Kysely<Database>;

export interface AccountListing {
  id: string;
  email: string;
  created_at: Date;
  verified: boolean;
  /** The plans it holds now: search (until), enterprise, elevated. */
  plan: string[];
  search_credits: number;
  whois_credits: number;
  /** suspended, law-enforcement, search-barred, closed. */
  flags: string[];
  suspended_reason: string | null;
  law_enforcement_reference: string | null;
  /** The newest session's start (sign-ins and registrations that signed in); null: never. */
  last_sign_in: Date | null;
}

/** Accounts (closed ones too), newest first; `query` matches a part of the email, case-insensitively. */
export async function listAccounts(db: Db, options: { query?: string; limit?: number } = {}): Promise<AccountListing[]> {
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
  const rows = await q.execute();
  const now = Date.now();
  return rows.map((row) => {
    const plan: string[] = [];
    if (row.search_subscribed_until && row.search_subscribed_until.getTime() > now) plan.push(`search until ${row.search_subscribed_until.toISOString().slice(0, 10)}`);
    if (row.is_enterprise) plan.push(row.enterprise_until ? `enterprise until ${row.enterprise_until.toISOString().slice(0, 10)}` : 'enterprise');
    if (row.elevated) plan.push('elevated');
    const flags: string[] = [];
    if (row.suspended_at) flags.push('suspended');
    if (row.law_enforcement) flags.push('law-enforcement');
    if (row.search_barred) flags.push('search-barred');
    if (row.closed_at) flags.push('closed');
    return {
      id: row.id,
      email: row.email,
      created_at: row.created_at,
      verified: row.email_verified_at !== null,
      plan,
      search_credits: row.search_credits,
      whois_credits: row.whois_credits,
      flags,
      suspended_reason: row.suspended_reason,
      law_enforcement_reference: row.law_enforcement_reference,
      last_sign_in: row.last_sign_in === null ? null : new Date(row.last_sign_in),
    };
  });
}

/** The open account with this email, its row locked for the change; undefined when none. */
async function lockOpenAccount(trx: Transaction<Database>, email: string) {
  return trx
    .selectFrom('users')
    .select(['id', 'email', 'suspended_at', 'law_enforcement', 'law_enforcement_reference'])
    .where(sql`lower(email)`, '=', email.trim().toLowerCase())
    .where('closed_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
}

export type AccountChange = { outcome: 'done'; userId: string; email: string } | { outcome: 'unchanged'; userId: string; email: string } | { outcome: 'no-account' };

/**
 * Suspends the open account: it cannot sign in, every session is revoked (reason
 * `suspended`), its API key opens nothing and its monitoring pauses while `suspended_at` is
 * set. Nothing is deleted. Already suspended: unchanged (nothing written).
 */
export async function suspendAccount(db: Db, input: { email: string; reason: string; operator: string }): Promise<AccountChange> {
  return db.transaction().execute(async (trx) => {
    const user = await lockOpenAccount(trx, input.email);
    if (!user) return { outcome: 'no-account' as const };
    if (user.suspended_at) return { outcome: 'unchanged' as const, userId: user.id, email: user.email };
    await trx
      .updateTable('users')
      .set({ suspended_at: sql`now()`, suspended_reason: input.reason, suspended_by: input.operator })
      .where('id', '=', user.id)
      .execute();
    await revokeUserSessions(trx, user.id, 'suspended');
    await recordAudit(trx, { operator: input.operator, action: 'user:suspend', target: user.email, reason: input.reason, details: { user_id: user.id } });
    return { outcome: 'done' as const, userId: user.id, email: user.email };
  });
}

/** Lifts a suspension: sign-in, the API key and monitoring work again (sessions revoked stay revoked). */
export async function unsuspendAccount(db: Db, input: { email: string; reason?: string; operator: string }): Promise<AccountChange> {
  return db.transaction().execute(async (trx) => {
    const user = await lockOpenAccount(trx, input.email);
    if (!user) return { outcome: 'no-account' as const };
    if (!user.suspended_at) return { outcome: 'unchanged' as const, userId: user.id, email: user.email };
    await trx.updateTable('users').set({ suspended_at: null, suspended_reason: null, suspended_by: null }).where('id', '=', user.id).execute();
    await recordAudit(trx, {
      operator: input.operator,
      action: 'user:unsuspend',
      target: user.email,
      reason: input.reason ?? null,
      details: { user_id: user.id, suspended_at: user.suspended_at.toISOString() },
    });
    return { outcome: 'done' as const, userId: user.id, email: user.email };
  });
}

/** Grants law-enforcement status resting on the verification `reference` (set again: the reference is replaced). */
export async function setLawEnforcement(db: Db, input: { email: string; reference: string; operator: string }): Promise<AccountChange> {
  return db.transaction().execute(async (trx) => {
    const user = await lockOpenAccount(trx, input.email);
    if (!user) return { outcome: 'no-account' as const };
    if (user.law_enforcement && user.law_enforcement_reference === input.reference) return { outcome: 'unchanged' as const, userId: user.id, email: user.email };
    await trx
      .updateTable('users')
      .set({ law_enforcement: true, law_enforcement_reference: input.reference, law_enforcement_set_by: input.operator, law_enforcement_set_at: sql`now()` })
      .where('id', '=', user.id)
      .execute();
    await recordAudit(trx, {
      operator: input.operator,
      action: 'user:set-le',
      target: user.email,
      details: { user_id: user.id, reference: input.reference, previous_reference: user.law_enforcement ? user.law_enforcement_reference : null },
    });
    return { outcome: 'done' as const, userId: user.id, email: user.email };
  });
}

/** Ends law-enforcement status; the reference it rested on stays in the audit log. */
export async function unsetLawEnforcement(db: Db, input: { email: string; reason?: string; operator: string }): Promise<AccountChange> {
  return db.transaction().execute(async (trx) => {
    const user = await lockOpenAccount(trx, input.email);
    if (!user) return { outcome: 'no-account' as const };
    if (!user.law_enforcement) return { outcome: 'unchanged' as const, userId: user.id, email: user.email };
    await trx
      .updateTable('users')
      .set({ law_enforcement: false, law_enforcement_reference: null, law_enforcement_set_by: input.operator, law_enforcement_set_at: sql`now()` })
      .where('id', '=', user.id)
      .execute();
    await recordAudit(trx, {
      operator: input.operator,
      action: 'user:unset-le',
      target: user.email,
      reason: input.reason ?? null,
      details: { user_id: user.id, reference: user.law_enforcement_reference },
    });
    return { outcome: 'done' as const, userId: user.id, email: user.email };
  });
}
