/**
 * What operators do to accounts from the CLI (`npm run admin -- user:list | user:suspend |
 * user:unsuspend | user:set-le | user:unset-le`, users-commands.ts). Each change and
 * its audit entry are one transaction. The decisions are in docs/operator-commands.md.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { recordAudit } from '../audit/audit-service';
import { revokeUserSessions } from '../auth/tokens-service';
import * as repo from './operator-accounts-repository';

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
  const rows = await repo.listAccountRows(db, options);
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

export type AccountChange = { outcome: 'done'; userId: string; email: string } | { outcome: 'unchanged'; userId: string; email: string } | { outcome: 'no-account' };

/**
 * Suspends the open account: it cannot sign in, every session is revoked (reason
 * `suspended`), its API key opens nothing and its monitoring pauses while `suspended_at` is
 * set. Nothing is deleted. Already suspended: unchanged (nothing written).
 */
export async function suspendAccount(db: Db, input: { email: string; reason: string; operator: string }): Promise<AccountChange> {
  return db.transaction().execute(async (trx) => {
    const user = await repo.lockOpenAccount(trx, input.email);
    if (!user) return { outcome: 'no-account' as const };
    if (user.suspended_at) return { outcome: 'unchanged' as const, userId: user.id, email: user.email };
    await repo.setSuspended(trx, user.id, { reason: input.reason, by: input.operator });
    await revokeUserSessions(trx, user.id, 'suspended');
    await recordAudit(trx, { operator: input.operator, action: 'user:suspend', target: user.email, reason: input.reason, details: { user_id: user.id } });
    return { outcome: 'done' as const, userId: user.id, email: user.email };
  });
}

/** Lifts a suspension: sign-in, the API key and monitoring work again (sessions revoked stay revoked). */
export async function unsuspendAccount(db: Db, input: { email: string; reason?: string; operator: string }): Promise<AccountChange> {
  return db.transaction().execute(async (trx) => {
    const user = await repo.lockOpenAccount(trx, input.email);
    if (!user) return { outcome: 'no-account' as const };
    if (!user.suspended_at) return { outcome: 'unchanged' as const, userId: user.id, email: user.email };
    await repo.setSuspended(trx, user.id, null);
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
    const user = await repo.lockOpenAccount(trx, input.email);
    if (!user) return { outcome: 'no-account' as const };
    if (user.law_enforcement && user.law_enforcement_reference === input.reference) return { outcome: 'unchanged' as const, userId: user.id, email: user.email };
    await repo.setLawEnforcement(trx, user.id, { reference: input.reference, by: input.operator });
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
    const user = await repo.lockOpenAccount(trx, input.email);
    if (!user) return { outcome: 'no-account' as const };
    if (!user.law_enforcement) return { outcome: 'unchanged' as const, userId: user.id, email: user.email };
    await repo.setLawEnforcement(trx, user.id, { reference: null, by: input.operator });
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
