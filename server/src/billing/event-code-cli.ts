/** `event-code:create`: an event code and its audit entry, in one transaction. */
import { withDatabase } from '../db/cli-database';
import { UsageError, stringOption, wholeNumberOption, type CommandContext, type OptionValues } from '../infra/operator-commands';
import { recordAudit } from '../audit/audit-service';
import { createEventCode, eventCodeProblem, parseGrant, type EventCodeGrant, type NewEventCode } from './event-code-service';

/** `--expires YYYY-MM-DD`: usable through that day, UTC (expires at the next midnight). */
function endOfDay(value: string | undefined): Date | null {
  if (value === undefined) return null;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : null;
  if (!day || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== value) throw new UsageError('--expires takes a date YYYY-MM-DD');
  return new Date(day.getTime() + 86_400_000);
}

function eventCodeInput(values: OptionValues): NewEventCode {
  const grants: EventCodeGrant[] = [];
  for (const text of (values.grant as string[] | undefined) ?? []) {
    const parsed = parseGrant(text);
    if (typeof parsed === 'string') throw new UsageError(`--grant: ${parsed}`);
    grants.push(parsed);
  }
  const input = { code: stringOption(values, 'code') ?? '', grants, maxUses: wholeNumberOption(values, 'uses') ?? 1, expiresAt: endOfDay(stringOption(values, 'expires')) };
  const problem = eventCodeProblem(input);
  if (problem) throw new UsageError(problem);
  return input;
}

export async function createEventCodeCommand({ operator }: CommandContext, values: OptionValues): Promise<number> {
  const input = eventCodeInput(values);
  return withDatabase(async (db) => {
    const created = await db.transaction().execute(async (trx) => {
      const made = await createEventCode(trx, input);
      await recordAudit(trx, {
        operator,
        action: 'event-code:create',
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
