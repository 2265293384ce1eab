/** Opting out and lifting it with the mailed link (opt-out-service.ts): the engine's suppression of the address. */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Engine } from '../../../engine/index';
import { Errors } from '../infra/errors';
import { useLink } from './opt-out-link';
import { holders } from './opt-out-holdings';

export const OPT_OUT_NOT_OPTED_OUT = 'This address is not opted out.';

type SuppressionDeps = { db: Kysely<Database>; engine: Engine };

/** How many records holding the address show. */
const showing = async (engine: Engine, email: string) => (await holders(engine, email, 1)).total;

/**
 * Uses the link up and opts the address out: every record holding it is hidden now and in
 * every data well ingested later. Answers how many records were hidden and how many still
 * show (0: the suppression covers them all).
 */
export async function confirmOptOut({ db, engine }: SuppressionDeps, token: string): Promise<{ removed: number; remaining: number }> {
  const email = await useLink(db, token);
  const before = await showing(engine, email);
  await engine.suppress(email);
  const after = await showing(engine, email);
  return { removed: before - after, remaining: after };
}

/** Uses the link up and lifts the address's opt-out: its records show again (unless removed one by one). */
export async function undoOptOut({ db, engine }: SuppressionDeps, token: string): Promise<{ restored: number }> {
  const email = await useLink(db, token);
  const before = await showing(engine, email);
  if (!(await engine.unsuppress(email))) throw Errors.badRequest(OPT_OUT_NOT_OPTED_OUT);
  return { restored: (await showing(engine, email)) - before };
}
