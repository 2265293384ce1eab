/**
 * Operator commands on accounts: list, suspend and unsuspend, law-enforcement status with
 * the reference of its verification. Every change writes its audit entry in the same
 * transaction (server/src/users/operator-accounts.ts).
 */
import { withDatabase } from '../../server/src/db/cli-database';
import { isValidEmail } from '../../server/src/auth/passwords';
import { listAccounts, setLawEnforcement, suspendAccount, unsetLawEnforcement, unsuspendAccount, type AccountChange } from '../../server/src/users/operator-accounts';
import { UsageError } from '../lib/cli';
import type { AdminCommands, OptionValues } from '../lib/admin-command';

const REASON_MAX = 1000;
const REFERENCE_MAX = 200;
const QUERY_MAX = 255;

function email(values: OptionValues): string {
  const value = typeof values.email === 'string' ? values.email.trim() : '';
  if (!value || !isValidEmail(value)) throw new UsageError('--email must be a valid email address');
  return value;
}

/** `--NAME TEXT`: trimmed, non-empty when `required`, at most `max` characters. */
function text(values: OptionValues, name: string, max: number, required: boolean): string | undefined {
  const raw = values[name];
  const value = typeof raw === 'string' ? raw.trim() : undefined;
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

export const accountCommands: AdminCommands = {
  'user:list': {
    options: { query: { type: 'string' }, json: { type: 'boolean' } },
    async run(values) {
      const query = typeof values.query === 'string' ? values.query.trim() : undefined;
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
        for (const a of accounts) {
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
        process.stdout.write(`${accounts.length} account${accounts.length === 1 ? '' : 's'}\n`);
        return 0;
      });
    },
  },
  'user:suspend': {
    options: { email: { type: 'string' }, reason: { type: 'string' } },
    async run(values, { operator }) {
      const input = { email: email(values), reason: text(values, 'reason', REASON_MAX, true)!, operator };
      return withDatabase(async (db) => report(await suspendAccount(db, input), 'Suspended', 'Already suspended; nothing changed'));
    },
  },
  'user:unsuspend': {
    options: { email: { type: 'string' }, reason: { type: 'string' } },
    async run(values, { operator }) {
      const input = { email: email(values), reason: text(values, 'reason', REASON_MAX, false), operator };
      return withDatabase(async (db) => report(await unsuspendAccount(db, input), 'Unsuspended', 'Not suspended; nothing changed'));
    },
  },
  'user:set-le': {
    options: { email: { type: 'string' }, reference: { type: 'string' } },
    async run(values, { operator }) {
      const input = { email: email(values), reference: text(values, 'reference', REFERENCE_MAX, true)!, operator };
      return withDatabase(async (db) => report(await setLawEnforcement(db, input), 'Law-enforcement status set', 'Already law enforcement with that reference; nothing changed'));
    },
  },
  'user:unset-le': {
    options: { email: { type: 'string' }, reason: { type: 'string' } },
    async run(values, { operator }) {
      const input = { email: email(values), reason: text(values, 'reason', REASON_MAX, false), operator };
      return withDatabase(async (db) => report(await unsetLawEnforcement(db, input), 'Law-enforcement status removed', 'Not law enforcement; nothing changed'));
    },
  },
};
