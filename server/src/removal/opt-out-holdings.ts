/** What an opt-out link covers (opt-out-service.ts): the records holding its address, per data well, without values. */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Engine } from '../../../engine/index';
import type { RateLimiter } from '../infra/rate-limiter';
import { Errors } from '../infra/errors';
import { peekLink } from './opt-out-link';
import type { OptOutHoldings } from '../common/opt-out-wire';

export type { OptOutHoldings };

export const OPT_OUT_MAX_RECORDS = 10_000;

/** Looking at a link (the page's preview) is free of mail but still searches: bounded per address. */
const PREVIEWS_PER_ADDRESS = { ratePerSecond: 1 / 10, burst: 20 };

/** The records holding the address, the first `size` of them listed. */
export function holders(engine: Engine, email: string, size: number) {
  // The address passed isValidEmail: no quote or backslash can end the quoted term.
  return engine.search({ query: `email:"${email}"`, mode: 'exact', page: 1, size, dedup: false });
}

async function holdings(engine: Engine, email: string): Promise<OptOutHoldings> {
  const [result, suppression] = await Promise.all([
    holders(engine, email, OPT_OUT_MAX_RECORDS),
    engine.suppression(email),
  ]);
  const perWell = new Map<string, number>();
  for (const entry of result.entries) perWell.set(entry.database_name, (perWell.get(entry.database_name) ?? 0) + 1);
  const wells = [...perWell].map(([name, records]) => ({ name, records })).sort((a, b) => b.records - a.records || a.name.localeCompare(b.name));
  return {
    email,
    total: result.total,
    wells,
    truncated: result.total > result.entries.length,
    opted_out: suppression.suppressed,
    opted_out_since: suppression.since === null ? null : new Date(suppression.since * 1000).toISOString(),
  };
}

/** What the link covers, and whether the address is opted out, without using the link up. */
export async function previewOptOut(deps: { db: Kysely<Database>; engine: Engine; limiter: RateLimiter }, token: string, address: string): Promise<OptOutHoldings> {
  const decision = await deps.limiter.take(`opt-out:preview:${address}`, PREVIEWS_PER_ADDRESS);
  if (!decision.allowed) throw Errors.tooManyRequests(decision.retryAfterMs);
  const email = await peekLink(deps.db, token);
  return holdings(deps.engine, email);
}
