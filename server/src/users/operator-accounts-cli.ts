/**
 * The command lines of the operator commands on accounts: list, suspend and unsuspend,
 * law-enforcement status with the reference of its verification. Every change writes its
 * audit entry in the same transaction (operator-accounts.ts).
 */
import { isValidEmail } from '../common/credentials';
import { withDatabase } from '../db/cli-database';
import { UsageError, stringOption, type CommandContext, type OptionValues } from '../infra/operator-commands';
import { listAccounts, setLawEnforcement, suspendAccount, unsetLawEnforcement, unsuspendAccount, type AccountChange } from './operator-accounts';

const REASON_MAX = 1000;
const REFERENCE_MAX = 200;
const QUERY_MAX = 255;

function email(values: OptionValues): string {
  const value = stringOption(values, 'email')?.trim() ?? '';
  if (!value || !isValidEmail(value)) throw new UsageError('--email must be a valid email address');
  return value;
}

/** `--NAME TEXT`: trimmed, non-empty when `required`, at most `max` characters. */
function text(values: OptionValues, name: string, max: number, required: boolean): string | undefined {
  const value = stringOption(values, name)?.trim();
  if (!value) {
    if (required) throw new UsageError(`--${name} is required (${name === 'reference' ? 'the reference of the verification' : 'why, for the audit log'})`);
    return undefined;
  }
  if (value.length > max) throw new UsageError(`--${name}: at most ${max} characters`);
  if ([...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) throw new UsageError(`--${name}: no control characters`);
  return value;
}

/** Prints the outcome of a change; an unknown account is exit code 1 with nothing changed. */
function report(change: AccountChange, done: string, unchanged: string): number {
  if (change.outcome === 'no-account') {
    process.stderr.write('admin: no open account with that email; nothing changed\n');
    return 1;
  }
  process.stdout.write(`${change.outcome === 'done' ? done : unchanged} (${change.email}, ${change.userId})\n`);
  return 0;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

type Account = Awaited<ReturnType<typeof listAccounts>>[number];

function printAccount(a: Account): void {
  const flags = a.flags.length ? a.flags.join(',') : '-';
  process.stdout.write(
    [
      a.email,
      `created ${a.created_at.toISOString().slice(0, 10)}`,
      a.verified ? 'verified' : 'unverified',
      `plan ${a.plan.length ? a.plan.join(', ') : 'free'}`,
      `credits ${a.search_credits} search, ${a.whois_credits} whois`,
      `flags ${flags}`,
      `last sign-in ${a.last_sign_in ? a.last_sign_in.toISOString() : 'never'}`,
    ].join('  |  ') + '\n',
  );
  if (a.suspended_reason) process.stdout.write(`    suspended: ${a.suspended_reason}\n`);
  if (a.law_enforcement_reference) process.stdout.write(`    law-enforcement reference: ${a.law_enforcement_reference}\n`);
}

/** `user:list [--query TEXT] [--json]`. */
export async function listAccountsCommand(values: OptionValues): Promise<number> {
  const query = stringOption(values, 'query')?.trim();
  if (query !== undefined && (query.length === 0 || query.length > QUERY_MAX)) throw new UsageError(`--query takes 1 to ${QUERY_MAX} characters`);
  return withDatabase(async (db) => {
    const accounts = await listAccounts(db, { query });
    if (values.json) {
      const out = accounts.map((a) => ({ ...a, created_at: iso(a.created_at), last_sign_in: iso(a.last_sign_in) }));
      process.stdout.write(`${JSON.stringify(out)}\n`);
      return 0;
    }
    if (accounts.length === 0) {
      process.stdout.write(query ? 'No account matches.\n' : 'There are no accounts.\n');
      return 0;
    }
    for (const a of accounts) printAccount(a);
    process.stdout.write(`${accounts.length} account${accounts.length === 1 ? '' : 's'}\n`);
    return 0;
  });
}

export async function suspendCommand({ operator }: CommandContext, values: OptionValues): Promise<number> {
  const input = { email: email(values), reason: text(values, 'reason', REASON_MAX, true)!, operator };
  return withDatabase(async (db) => report(await suspendAccount(db, input), 'Suspended', 'Already suspended; nothing changed'));
}

export async function unsuspendCommand({ operator }: CommandContext, values: OptionValues): Promise<number> {
  const input = { email: email(values), reason: text(values, 'reason', REASON_MAX, false), operator };
  return withDatabase(async (db) => report(await unsuspendAccount(db, input), 'Unsuspended', 'Not suspended; nothing changed'));
}

export async function setLawEnforcementCommand({ operator }: CommandContext, values: OptionValues): Promise<number> {
  const input = { email: email(values), reference: text(values, 'reference', REFERENCE_MAX, true)!, operator };
  return withDatabase(async (db) => report(await setLawEnforcement(db, input), 'Law-enforcement status set', 'Already law enforcement with that reference; nothing changed'));
}

export async function unsetLawEnforcementCommand({ operator }: CommandContext, values: OptionValues): Promise<number> {
  const input = { email: email(values), reason: text(values, 'reason', REASON_MAX, false), operator };
  return withDatabase(async (db) => report(await unsetLawEnforcement(db, input), 'Law-enforcement status removed', 'Not law enforcement; nothing changed'));
}
