/**
 * What every write of channels shares (docs/monitoring.md "Channel", "Tiers"): the
 * transaction that holds the user's row and knows the tier, the checks run inside it (room
 * under the tier's limits: email and SMS channels together, webhooks apart, disabled ones
 * not at all; no duplicate), a webhook's signing secret, and an email address's confirmation.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import { MONITORING_MESSAGES, type ChannelKind } from '../common/monitoring-rules';
import * as repo from './channels-repository';
import type { ChannelRow } from './channels-repository';
import { readTier, readUsage, type TierState } from './tiers';
import type { ChannelConfirmations } from './channels-confirmation';
import { DUPLICATE_CHANNEL_MESSAGE, sameTarget } from './channel-input';
import { awaitingConfirmation } from './channel-state';

/** What the channel use cases are given; each takes the part it uses. */
export interface ChannelsDeps {
  db: Kysely<Database>;
  allowPrivateWebhooks: boolean;
  confirmations: ChannelConfirmations;
}

/** Standard Webhooks: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export async function locked<T>(db: Kysely<Database>, userId: string, work: (trx: Transaction<Database>, tier: TierState) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const tier = await readTier(trx, userId, { lock: true });
    if (!tier) throw Errors.unauthorized();
    return work(trx, tier);
  });
}

/** The tier's 'reached maximum' message when one more enabled channel of `kind` does not fit. */
export async function checkRoom(trx: Transaction<Database>, userId: string, tier: TierState, kind: ChannelKind): Promise<void> {
  if (kind === 'phone' && !tier.limits.sms) throw Errors.badRequest(MONITORING_MESSAGES.maxChannels);
  const usage = await readUsage(trx, userId);
  if (kind === 'webhook') {
    if (usage.webhooks >= tier.limits.max_webhooks) throw Errors.badRequest(MONITORING_MESSAGES.maxWebhooks);
  } else if (usage.channels >= tier.limits.max_notification_channels) {
    throw Errors.badRequest(MONITORING_MESSAGES.maxChannels);
  }
}

export async function checkNotDuplicate(trx: Transaction<Database>, userId: string, kind: ChannelKind, value: string, exceptId?: string) {
  const rows = await repo.listChannels(trx, userId);
  if (rows.some((row) => row.id !== exceptId && row.kind === kind && row.value && sameTarget(kind, row.value, value))) {
    throw Errors.badRequest(DUPLICATE_CHANNEL_MESSAGE);
  }
}

/** An email address's confirmation state when it is set: confirmed at once when it is the account's verified address. */
export async function verifiedAtFor(trx: Transaction<Database>, userId: string, value: string): Promise<Date | null> {
  const account = await repo.readAccountEmail(trx, userId);
  return account?.verified && sameTarget('email', account.email, value) ? new Date() : null;
}

/** After the commit: the confirmation mail of a channel awaiting one that was never mailed (a new address). */
export async function confirmIfNeeded(confirmations: ChannelConfirmations, channel: ChannelRow): Promise<ChannelRow> {
  if (!awaitingConfirmation(channel) || channel.confirm_sent_at) return channel;
  return (await confirmations.send(channel)) ? { ...channel, confirm_sent_at: new Date() } : channel;
}
