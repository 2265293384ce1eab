/**
 * Resend confirmation (docs/monitoring.md "Email channel confirmation"): a new link (the
 * previous one stops working) for one of the caller's email channels awaiting
 * confirmation; 429 within CONFIRM_RESEND_INTERVAL_MS of the last one.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import * as repo from './channels-repository';
import type { ChannelRow } from './channels-repository';
import { CONFIRM_RESEND_INTERVAL_MS, type ChannelConfirmations } from './channels-confirmation';
import { NOTHING_TO_CONFIRM_MESSAGE } from './channel-input';
import { awaitingConfirmation } from './channel-state';
import { getChannel } from './channel-queries';

export async function resendConfirmation(deps: { db: Kysely<Database>; confirmations: ChannelConfirmations }, userId: string, id: unknown): Promise<ChannelRow> {
  const row = await getChannel(deps.db, userId, id);
  if (!awaitingConfirmation(row)) throw Errors.badRequest(NOTHING_TO_CONFIRM_MESSAGE);
  const wait = row.confirm_sent_at ? row.confirm_sent_at.getTime() + CONFIRM_RESEND_INTERVAL_MS - Date.now() : 0;
  if (wait > 0) throw Errors.tooManyRequests(wait);
  await deps.confirmations.send(row);
  return (await repo.getChannel(deps.db, userId, row.id)) ?? row;
}
