/**
 * `user:create` and `user:grant`: the account (created, or found open), what it is granted
 * and the audit entry in one transaction, or nothing at all; a new API key after it when
 * asked. Credits are granted through the ledger (reason admin-grant, reference
 * admin-grant:<uuid>:<sku>), one row per credit kind.
 */
import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import { isValidEmail } from '../common/credentials';
import { withDatabase } from '../db/cli-database';
import type { Database } from '../db/schema';
import { UsageError, stringOption, wholeNumberOption, type CommandContext, type OptionValues } from '../infra/operator-commands';
import { recordAudit } from '../audit/audit-service';
import { hashPassword, passwordProblem } from '../auth/passwords-service';
import { grantPurchase } from '../payments/grants-service';
import { applyGrant, findOpenUserByEmail, insertUser, type Grant } from './user-repository';
import { createUserService } from './user-service';

type GrantCommandName = 'user:create' | 'user:grant';

function grantOf(values: OptionValues): Grant {
  return {
    verified: values.verified as boolean | undefined,
    searchDays: wholeNumberOption(values, 'search-days'),
    searchCredits: wholeNumberOption(values, 'search-credits'),
    whoisCredits: wholeNumberOption(values, 'whois-credits'),
    enterprise: values.enterprise as boolean | undefined,
    elevated: values.elevated as boolean | undefined,
  };
}

/** The account's email, checked; user:create's password checked too. */
function checkedEmail(command: GrantCommandName, values: OptionValues): string {
  const email = stringOption(values, 'email')?.trim();
  if (!email || !isValidEmail(email)) throw new UsageError('--email must be a valid email address');
  // Law-enforcement status rests on a verification whose reference is kept with it.
  if (values.le) throw new UsageError('--le is no longer accepted here: use user:set-le --email E --reference TEXT');
  if (command === 'user:create') {
    const problem = passwordProblem(stringOption(values, 'password') ?? '');
    if (problem) throw new UsageError(`--password: ${problem}`);
  }
  return email;
}

async function openAccount(trx: Transaction<Database>, command: GrantCommandName, email: string, passwordHash: string, verified: boolean): Promise<string> {
  if (command === 'user:create') {
    const created = await insertUser(trx, { email, passwordHash, verified });
    if (!created) throw new UsageError(`an open account for ${email} exists already (use user:grant)`);
    return created;
  }
  const user = await findOpenUserByEmail(trx, email);
  if (!user) throw new UsageError(`no open account for ${email}`);
  return user.id;
}

async function grantCredits(trx: Transaction<Database>, userId: string, grant: Grant): Promise<void> {
  const grantId = randomUUID();
  for (const [sku, quantity] of [
    ['search-credits', grant.searchCredits],
    ['whois-credits', grant.whoisCredits],
  ] as const) {
    if (quantity) await grantPurchase(trx, { userId, sku, quantity, source: `admin-grant:${grantId}:${sku}`, reason: 'admin-grant' });
  }
}

/** What was granted, for the audit log: never the password or the key (only that a new key was made). */
function grantedDetails(grant: Grant, newApiKey: boolean | undefined): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries({
      verified: grant.verified,
      search_days: grant.searchDays,
      search_credits: grant.searchCredits,
      whois_credits: grant.whoisCredits,
      enterprise: grant.enterprise,
      elevated: grant.elevated,
      new_api_key: newApiKey,
    }).filter(([, value]) => value !== undefined && value !== false && value !== 0),
  );
}

function printOutcome(command: GrantCommandName, values: OptionValues, account: { id: string; email: string; apiKey?: string }): void {
  const { id, email, apiKey } = account;
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ id, email, ...(apiKey ? { api_key: apiKey } : {}) })}\n`);
    return;
  }
  process.stdout.write(`${command === 'user:create' ? 'Created' : 'Updated'} ${email} (${id})\n`);
  if (apiKey) process.stdout.write(`API key (shown once): ${apiKey}\n`);
}

export async function grantCommand(command: GrantCommandName, { operator }: CommandContext, values: OptionValues): Promise<number> {
  const grant = grantOf(values);
  const email = checkedEmail(command, values);
  const passwordHash = command === 'user:create' ? await hashPassword(stringOption(values, 'password')!) : '';
  const newApiKey = values['api-key'] as boolean | undefined;
  return withDatabase(async (db) => {
    const id = await db.transaction().execute(async (trx) => {
      const userId = await openAccount(trx, command, email, passwordHash, Boolean(values.verified));
      await applyGrant(trx, userId, { ...grant, searchCredits: undefined, whoisCredits: undefined });
      await grantCredits(trx, userId, grant);
      await recordAudit(trx, { operator, action: command, target: email, details: { user_id: userId, ...grantedDetails(grant, newApiKey) } });
      return userId;
    });
    const apiKey = newApiKey ? await createUserService(db).regenerateApiKey(id) : undefined;
    printOutcome(command, values, { id, email, apiKey });
    return 0;
  });
}
