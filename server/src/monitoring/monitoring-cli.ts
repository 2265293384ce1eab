/** `notify:global` and `domain:verify`: each change with its audit entry, in one transaction. */
import { normalizeDomain } from '../common/monitoring-rules';
import { withDatabase } from '../db/cli-database';
import { UsageError, stringOption, type CommandContext, type OptionValues } from '../infra/operator-commands';
import { recordAudit } from '../audit/audit-service';
import { findOpenUserByEmail } from '../users/accounts-service';
import { markDomainVerified } from './domain-verification-service';
import { insertGlobalNotification } from './notifications-repository';

const GLOBAL_NOTICE_MAX_LENGTH = 2000;

export async function globalNoticeCommand({ operator }: CommandContext, values: OptionValues): Promise<number> {
  const message = stringOption(values, 'message')?.trim() ?? '';
  if (!message) throw new UsageError('--message takes the text of the notice');
  if (message.length > GLOBAL_NOTICE_MAX_LENGTH) throw new UsageError(`--message: at most ${GLOBAL_NOTICE_MAX_LENGTH} characters`);
  return withDatabase(async (db) => {
    const accounts = await db.transaction().execute(async (trx) => {
      const posted = await insertGlobalNotification(trx, message);
      await recordAudit(trx, { operator, action: 'notify:global', details: { message, accounts: posted } });
      return posted;
    });
    process.stdout.write(`Posted to ${accounts} account${accounts === 1 ? '' : 's'}.\n`);
    return 0;
  });
}

export async function verifyDomainCommand({ operator }: CommandContext, values: OptionValues): Promise<number> {
  const email = stringOption(values, 'email');
  if (!email) throw new UsageError('--email is required');
  const domain = normalizeDomain(stringOption(values, 'domain') ?? '');
  if (!domain) throw new UsageError('--domain takes a domain name (example.com)');
  return withDatabase(async (db) => {
    const user = await findOpenUserByEmail(db, email);
    if (!user) throw new UsageError(`no open account with email ${email}`);
    await db.transaction().execute(async (trx) => {
      await markDomainVerified(trx, user.id, domain, 'operator');
      await recordAudit(trx, { operator, action: 'domain:verify', target: email, details: { user_id: user.id, domain } });
    });
    process.stdout.write(`${domain} verified for ${email} (operator).\n`);
    return 0;
  });
}
