import type { Kysely } from 'kysely';

// Frozen: never edit after it lands; add a new migration instead.
// Operators suspend an account (`npm run admin -- user:suspend`): while `suspended_at` is set
// the account cannot sign in, its sessions are revoked, its API key opens nothing (/v2 and the
// Monitor API) and its monitoring is paused; nothing is deleted and `user:unsuspend` clears
// the three columns. Law-enforcement status (`users.law_enforcement`) now keeps the reference
// of the verification it rests on, who set it and when (`user:set-le`). The last sign-in is
// not a column: it is the newest `sessions.created_at` of the account.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('suspended_at', 'timestamptz')
    .addColumn('suspended_reason', 'text')
    .addColumn('suspended_by', 'text')
    .addColumn('law_enforcement_reference', 'text')
    .addColumn('law_enforcement_set_by', 'text')
    .addColumn('law_enforcement_set_at', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .dropColumn('suspended_at')
    .dropColumn('suspended_reason')
    .dropColumn('suspended_by')
    .dropColumn('law_enforcement_reference')
    .dropColumn('law_enforcement_set_by')
    .dropColumn('law_enforcement_set_at')
    .execute();
}
