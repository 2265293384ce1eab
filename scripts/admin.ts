/**
 * Operator CLI: `npm run admin -- <command> [options]`. Works whether or not the server
 * is running (it talks to the same database; see server/src/db/cli-database.ts).
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { withDatabase } from '../server/src/db/cli-database';
import { hashPassword, isValidEmail, passwordProblem } from '../server/src/auth/passwords';
import { applyGrant, findOpenUserByEmail, insertUser, type Grant } from '../server/src/users/user-repository';
import { createUserService } from '../server/src/users/user-service';
import { extractLinks } from '../server/src/mail/mail-service';
import { readOutbox } from '../server/src/mail/outbox-repository';
import { embeddedConnectionString } from '../server/src/infra/embedded-postgres';
import { SIMULATED_STATUSES, simulateCryptoPayment, type SimulatedStatus } from '../server/src/payments/crypto/sandbox';
import { isCryptoCurrency } from '../server/src/payments/crypto/crypto-provider';
import { productDef } from '../server/src/common/catalogue';
import { createSandboxProvider } from '../server/src/payments/card/sandbox-provider';
import { createEventCode, eventCodeProblem, parseGrant, type EventCodeGrant } from '../server/src/billing/event-code-service';
import { bannerMarkupProblem, createBannerService } from '../server/src/marketing/banner-service';
import { grantPurchase } from '../server/src/payments/grants-service';
import { insertGlobalNotification } from '../server/src/monitoring/notifications-repository';
import { markDomainVerified } from '../server/src/monitoring/domain-verification-service';
import { normalizeDomain } from '../server/src/common/monitoring-rules';
import { UsageError } from './lib/cli';
import { USAGE, asksForUsage } from './admin/usage';
import { MODULE_COMMANDS } from './admin/commands';
import { operatorName, recordAudit } from '../server/src/audit/audit-service';

/**
 * BullMQ and its Redis client make up most of the admin CLI's code: loaded by the commands
 * that queue an event, not by every start.
 */
const loadQueues = () => import('../server/src/infra/queues');

const GLOBAL_NOTICE_MAX_LENGTH = 2000;

function count(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value)) throw new UsageError(`--${name} takes a whole number`);
  return Number(value);
}

/** `--expires YYYY-MM-DD`: usable through that day, UTC (expires at the next midnight). */
function endOfDay(value: string | undefined): Date | null {
  if (value === undefined) return null;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : null;
  if (!day || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value) throw new UsageError('--expires takes a date YYYY-MM-DD');
  return new Date(day.getTime() + 86_400_000);
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || asksForUsage(argv)) {
    process.stdout.write(USAGE);
    return command ? 0 : 2;
  }
  const moduleCommand = MODULE_COMMANDS[command];
  if (moduleCommand) {
    const { values: moduleValues } = parseArgs({ args: rest, strict: true, options: { ...moduleCommand.options, operator: { type: 'string' } } });
    return moduleCommand.run(moduleValues, { operator: operatorName(moduleValues.operator as string | undefined) });
  }
  const { values } = parseArgs({
    args: rest,
    strict: true,
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      verified: { type: 'boolean' },
      'search-days': { type: 'string' },
      'search-credits': { type: 'string' },
      'whois-credits': { type: 'string' },
      enterprise: { type: 'boolean' },
      elevated: { type: 'boolean' },
      le: { type: 'boolean' },
      'api-key': { type: 'boolean' },
      json: { type: 'boolean' },
      to: { type: 'string' },
      limit: { type: 'string' },
      invoice: { type: 'string' },
      status: { type: 'string' },
      currency: { type: 'string' },
      namespace: { type: 'string' },
      code: { type: 'string' },
      grant: { type: 'string', multiple: true },
      uses: { type: 'string' },
      expires: { type: 'string' },
      sku: { type: 'string' },
      price: { type: 'string' },
      subscription: { type: 'string' },
      payment: { type: 'string' },
      message: { type: 'string' },
      domain: { type: 'string' },
      operator: { type: 'string' },
    },
  });
  const grant: Grant = {
    verified: values.verified,
    searchDays: count(values['search-days'], 'search-days'),
    searchCredits: count(values['search-credits'], 'search-credits'),
    whoisCredits: count(values['whois-credits'], 'whois-credits'),
    enterprise: values.enterprise,
    elevated: values.elevated,
  };
  const operator = operatorName(values.operator);

  switch (command) {
    case 'user:create':
    case 'user:grant': {
      const email = values.email?.trim();
      if (!email || !isValidEmail(email)) throw new UsageError('--email must be a valid email address');
      // Law-enforcement status rests on a verification whose reference is kept with it.
      if (values.le) throw new UsageError('--le is no longer accepted here: use user:set-le --email E --reference TEXT');
      if (command === 'user:create') {
        const problem = passwordProblem(values.password ?? '');
        if (problem) throw new UsageError(`--password: ${problem}`);
      }
      const passwordHash = command === 'user:create' ? await hashPassword(values.password!) : '';
      return withDatabase(async (db) => {
        // One transaction: the account (or its lookup), what it is granted, and a ledger row
        // per credit kind (reason admin-grant, reference admin-grant:<uuid>:<sku>), or nothing at all.
        const id = await db.transaction().execute(async (trx) => {
          let userId: string;
          if (command === 'user:create') {
            const created = await insertUser(trx, { email, passwordHash, verified: Boolean(values.verified) });
            if (!created) throw new UsageError(`an open account for ${email} exists already (use user:grant)`);
            userId = created;
          } else {
            const user = await findOpenUserByEmail(trx, email);
            if (!user) throw new UsageError(`no open account for ${email}`);
            userId = user.id;
          }
          await applyGrant(trx, userId, { ...grant, searchCredits: undefined, whoisCredits: undefined });
          const grantId = randomUUID();
          for (const [sku, quantity] of [
            ['search-credits', grant.searchCredits],
            ['whois-credits', grant.whoisCredits],
          ] as const) {
            if (quantity) await grantPurchase(trx, { userId, sku, quantity, source: `admin-grant:${grantId}:${sku}`, reason: 'admin-grant' });
          }
          // What was granted, never the password or the key (only that a new key was made).
          const granted = Object.fromEntries(
            Object.entries({
              verified: grant.verified,
              search_days: grant.searchDays,
              search_credits: grant.searchCredits,
              whois_credits: grant.whoisCredits,
              enterprise: grant.enterprise,
              elevated: grant.elevated,
              new_api_key: values['api-key'],
            }).filter(([, value]) => value !== undefined && value !== false && value !== 0),
          );
          await recordAudit(trx, { operator, action: command, target: email, details: { user_id: userId, ...granted } });
          return userId;
        });
        const apiKey = values['api-key'] ? await createUserService(db).regenerateApiKey(id) : undefined;
        if (values.json) {
          process.stdout.write(`${JSON.stringify({ id, email, ...(apiKey ? { api_key: apiKey } : {}) })}\n`);
        } else {
          process.stdout.write(`${command === 'user:create' ? 'Created' : 'Updated'} ${email} (${id})\n`);
          if (apiKey) process.stdout.write(`API key (shown once): ${apiKey}\n`);
        }
        return 0;
      });
    }
    case 'outbox': {
      const limit = count(values.limit, 'limit') ?? 20;
      return withDatabase(async (db) => {
        const rows = await readOutbox(db, { limit, ...(values.to ? { to: values.to } : {}) });
        for (const row of rows) {
          process.stdout.write(`#${row.id} ${row.created_at.toISOString()} to ${row.to_address}: ${row.subject}\n`);
          for (const link of extractLinks(row.text_body)) process.stdout.write(`    ${link}\n`);
        }
        if (rows.length === 0) process.stdout.write('The outbox is empty.\n');
        return 0;
      });
    }
    case 'event-code:create': {
      const grants: EventCodeGrant[] = [];
      for (const text of values.grant ?? []) {
        const parsed = parseGrant(text);
        if (typeof parsed === 'string') throw new UsageError(`--grant: ${parsed}`);
        grants.push(parsed);
      }
      const input = { code: values.code ?? '', grants, maxUses: count(values.uses, 'uses') ?? 1, expiresAt: endOfDay(values.expires) };
      const problem = eventCodeProblem(input);
      if (problem) throw new UsageError(problem);
      return withDatabase(async (db) => {
        const created = await db.transaction().execute(async (trx) => {
          const made = await createEventCode(trx, input);
          await recordAudit(trx, {
            operator,
            action: command,
            target: made.code,
            details: { grants: made.grants, max_uses: made.maxUses, expires_at: made.expiresAt?.toISOString() ?? null },
          });
          return made;
        });
        const expiresAt = created.expiresAt?.toISOString() ?? null;
        if (values.json) {
          process.stdout.write(`${JSON.stringify({ code: created.code, grants: created.grants, max_uses: created.maxUses, expires_at: expiresAt })}\n`);
        } else {
          const what = created.grants.map((grant) => `${grant.quantity} × ${grant.sku}`).join(', ');
          process.stdout.write(`Created event code ${created.code}: ${what}; ${created.maxUses} use(s)${expiresAt ? `, until ${expiresAt}` : ''}\n`);
        }
        return 0;
      });
    }
    case 'payment:simulate': {
      const invoice = values.invoice?.trim();
      if (!invoice) throw new UsageError('--invoice takes the invoice id');
      const status = (values.status ?? 'settled') as SimulatedStatus;
      if (!SIMULATED_STATUSES.includes(status)) throw new UsageError(`--status takes one of ${SIMULATED_STATUSES.join(', ')}`);
      const currency = values.currency ?? 'btc';
      if (!isCryptoCurrency(currency)) throw new UsageError('--currency takes btc, ltc, xmr, bch or eth');
      return withDatabase(async (db, config) => {
        // The server's queues: same backend, same namespace (runtime.ts's default is leakwell).
        const queues = (await loadQueues()).createQueueSystem({
          connectionString: config.DATABASE_URL ?? embeddedConnectionString(config.dataDir, config.EMBEDDED_PG_PORT),
          redisUrl: config.REDIS_URL,
          namespace: values.namespace ?? 'leakwell',
        });
        try {
          const eventId = await simulateCryptoPayment({ config, db, queues }, { paymentId: invoice, status, currency });
          // After the event is queued (the provider's event, not a change of ours to roll back).
          await recordAudit(db, { operator, action: command, target: invoice, details: { status, currency, event_id: eventId } });
          process.stdout.write(`Simulated ${status} for invoice ${invoice} (event ${eventId}); the server applies it.\n`);
          return 0;
        } finally {
          await queues.close();
        }
      });
    }
    case 'product:set': {
      const sku = values.sku ?? '';
      if (!productDef(sku)) throw new UsageError(`--sku: unknown product "${sku}"`);
      const price = values.price ?? '';
      // Whole cents: 15.49, 0.05, 3.
      if (!/^\d{1,7}(\.\d{1,2})?$/.test(price) || Math.round(Number(price) * 100) <= 0) throw new UsageError('--price takes a positive USD amount with at most 2 decimals');
      const cents = Math.round(Number(price) * 100);
      return withDatabase(async (db) => {
        await db.transaction().execute(async (trx) => {
          const before = await trx.selectFrom('products').select('price_cents').where('sku', '=', sku).forUpdate().executeTakeFirstOrThrow();
          await trx.updateTable('products').set({ price_cents: cents, updated_at: new Date() }).where('sku', '=', sku).executeTakeFirstOrThrow();
          await recordAudit(trx, { operator, action: command, target: sku, details: { price_cents: cents, previous_price_cents: before.price_cents } });
        });
        process.stdout.write(`${sku}: $${(cents / 100).toFixed(2)} per unit from the next checkout\n`);
        return 0;
      });
    }
    case 'payment:renew':
    case 'payment:refund': {
      const target = command === 'payment:renew' ? values.subscription?.trim() : values.payment?.trim();
      if (!target) throw new UsageError(command === 'payment:renew' ? '--subscription takes the sandbox subscription id' : '--payment takes the payment id');
      return withDatabase(async (db, config) => {
        if (config.CARD_PROVIDER !== 'sandbox') throw new UsageError(`${command} only simulates the sandbox card provider (CARD_PROVIDER=${config.CARD_PROVIDER})`);
        // The server's queues: same backend, same namespace (runtime.ts's default is leakwell).
        const queues = (await loadQueues()).createQueueSystem({
          connectionString: config.DATABASE_URL ?? embeddedConnectionString(config.dataDir, config.EMBEDDED_PG_PORT),
          redisUrl: config.REDIS_URL,
          namespace: values.namespace ?? 'leakwell',
        });
        try {
          const sandbox = createSandboxProvider({ config, db, queues });
          const { eventId } = command === 'payment:renew' ? await sandbox.renew(target) : await sandbox.refund(target);
          await recordAudit(db, { operator, action: command, target, details: { event_id: eventId } });
          process.stdout.write(`${command === 'payment:renew' ? 'Renewal' : 'Refund'} sent (event ${eventId}); the server applies it.\n`);
          return 0;
        } finally {
          await queues.close();
        }
      });
    }
    case 'banner:set': {
      const message = values.message?.trim() ?? '';
      const problem = bannerMarkupProblem(message);
      if (problem) throw new UsageError(`--message: ${problem}`);
      return withDatabase(async (db) => {
        const id = await db.transaction().execute(async (trx) => {
          const bannerId = await createBannerService(trx).set(message);
          await recordAudit(trx, { operator, action: command, target: bannerId, details: { message } });
          return bannerId;
        });
        process.stdout.write(`${id}\n`);
        return 0;
      });
    }
    case 'banner:clear':
      return withDatabase(async (db) => {
        const cleared = await db.transaction().execute(async (trx) => {
          const done = await createBannerService(trx).clear();
          if (done) await recordAudit(trx, { operator, action: command });
          return done;
        });
        process.stdout.write(cleared ? 'Banner cleared.\n' : 'There was no banner.\n');
        return 0;
      });
    case 'notify:global': {
      const message = values.message?.trim() ?? '';
      if (!message) throw new UsageError('--message takes the text of the notice');
      if (message.length > GLOBAL_NOTICE_MAX_LENGTH) throw new UsageError(`--message: at most ${GLOBAL_NOTICE_MAX_LENGTH} characters`);
      return withDatabase(async (db) => {
        const accounts = await db.transaction().execute(async (trx) => {
          const posted = await insertGlobalNotification(trx, message);
          await recordAudit(trx, { operator, action: command, details: { message, accounts: posted } });
          return posted;
        });
        process.stdout.write(`Posted to ${accounts} account${accounts === 1 ? '' : 's'}.\n`);
        return 0;
      });
    }
    case 'domain:verify': {
      if (!values.email) throw new UsageError('--email is required');
      const domain = normalizeDomain(values.domain ?? '');
      if (!domain) throw new UsageError('--domain takes a domain name (example.com)');
      return withDatabase(async (db) => {
        const user = await findOpenUserByEmail(db, values.email!);
        if (!user) throw new UsageError(`no open account with email ${values.email}`);
        await db.transaction().execute(async (trx) => {
          await markDomainVerified(trx, user.id, domain, 'operator');
          await recordAudit(trx, { operator, action: command, target: values.email, details: { user_id: user.id, domain } });
        });
        process.stdout.write(`${domain} verified for ${values.email} (operator).\n`);
        return 0;
      });
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`admin: ${(error as Error).message}\n\n${USAGE}`);
      process.exit(2);
    }
    process.stderr.write(`admin: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
