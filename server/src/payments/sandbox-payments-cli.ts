/**
 * `payment:simulate`, `payment:renew` and `payment:refund`: the sandbox providers' events,
 * queued on the server's queues (same backend, same namespace) for its workers to apply, as
 * a real provider's delivery would be. Each is recorded in the audit log after its event is
 * queued: the provider's event, not a change of ours to roll back.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../config';
import { withDatabase } from '../db/cli-database';
import type { Database } from '../db/schema';
import { embeddedConnectionString } from '../infra/embedded-postgres';
import { UsageError, stringOption, type CommandContext, type OptionValues } from '../infra/operator-commands';
import { createQueueSystem, type QueueSystem } from '../infra/queues';
import { recordAudit } from '../audit/audit-service';
import { createSandboxProvider } from './card/sandbox-provider';
import { isCryptoCurrency } from './crypto/crypto-provider';
import { SIMULATED_STATUSES, simulateCryptoPayment, type SimulatedStatus } from './crypto/sandbox';

type SandboxDeps = { config: Config; db: Kysely<Database>; queues: QueueSystem };

/** Runs `fn` with the database and the server's queues (runtime.ts's default namespace is leakwell). */
function withServerQueues(values: OptionValues, fn: (deps: SandboxDeps) => Promise<number>, check?: (config: Config) => void): Promise<number> {
  return withDatabase(async (db, config) => {
    check?.(config);
    const queues = createQueueSystem({
      connectionString: config.DATABASE_URL ?? embeddedConnectionString(config.dataDir, config.EMBEDDED_PG_PORT),
      redisUrl: config.REDIS_URL,
      namespace: stringOption(values, 'namespace') ?? 'leakwell',
    });
    try {
      return await fn({ config, db, queues });
    } finally {
      await queues.close();
    }
  });
}

export async function simulateCryptoCommand({ operator }: CommandContext, values: OptionValues): Promise<number> {
  const invoice = stringOption(values, 'invoice')?.trim();
  if (!invoice) throw new UsageError('--invoice takes the invoice id');
  const status = (stringOption(values, 'status') ?? 'settled') as SimulatedStatus;
  if (!SIMULATED_STATUSES.includes(status)) throw new UsageError(`--status takes one of ${SIMULATED_STATUSES.join(', ')}`);
  const currency = stringOption(values, 'currency') ?? 'btc';
  if (!isCryptoCurrency(currency)) throw new UsageError('--currency takes btc, ltc, xmr, bch or eth');
  return withServerQueues(values, async (deps) => {
    const eventId = await simulateCryptoPayment(deps, { paymentId: invoice, status, currency });
    await recordAudit(deps.db, { operator, action: 'payment:simulate', target: invoice, details: { status, currency, event_id: eventId } });
    process.stdout.write(`Simulated ${status} for invoice ${invoice} (event ${eventId}); the server applies it.\n`);
    return 0;
  });
}

export async function sandboxCardCommand(command: 'payment:renew' | 'payment:refund', { operator }: CommandContext, values: OptionValues): Promise<number> {
  const renew = command === 'payment:renew';
  const target = stringOption(values, renew ? 'subscription' : 'payment')?.trim();
  if (!target) throw new UsageError(renew ? '--subscription takes the sandbox subscription id' : '--payment takes the payment id');
  const sandboxOnly = (config: Config) => {
    if (config.CARD_PROVIDER !== 'sandbox') throw new UsageError(`${command} only simulates the sandbox card provider (CARD_PROVIDER=${config.CARD_PROVIDER})`);
  };
  return withServerQueues(
    values,
    async (deps) => {
      const sandbox = createSandboxProvider(deps);
      const { eventId } = renew ? await sandbox.renew(target) : await sandbox.refund(target);
      await recordAudit(deps.db, { operator, action: command, target, details: { event_id: eventId } });
      process.stdout.write(`${renew ? 'Renewal' : 'Refund'} sent (event ${eventId}); the server applies it.\n`);
      return 0;
    },
    sandboxOnly,
  );
}
