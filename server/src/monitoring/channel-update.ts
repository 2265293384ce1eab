/**
 * Changing a channel's value (docs/monitoring.md "Channel"): '' disables it; a value for a
 * disabled channel turns it on, which must fit the tier. The kind stays. An email channel
 * given another address awaits confirmation again, unless it is the account's verified one.
 */
import { Errors } from '../infra/errors';
import { MONITORING_MESSAGES } from '../common/monitoring-rules';
import * as repo from './channels-repository';
import type { ChannelRow } from './channels-repository';
import { taskId } from './task-input';
import { CHANNEL_KIND_FIXED_MESSAGE, CHANNEL_NOT_FOUND, checkChannelValue, parseChannelKind, sameTarget, storedChannelValue } from './channel-input';
import { checkNotDuplicate, checkRoom, confirmIfNeeded, locked, newWebhookSecret, verifiedAtFor, type ChannelsDeps } from './channel-writes';
import { addChannel } from './channel-add';

/** A new value for one of the user's channels. */
export async function updateChannel(deps: ChannelsDeps, userId: string, id: unknown, key: unknown, rawValue: string): Promise<{ channel: ChannelRow; secret?: string }> {
  const channelId = taskId(id);
  if (!channelId) throw Errors.notFound(CHANNEL_NOT_FOUND);
  const kind = key === undefined ? undefined : parseChannelKind(key);
  const value = storedChannelValue(rawValue);
  const before = await repo.getChannel(deps.db, userId, channelId);
  if (!before) throw Errors.notFound(CHANNEL_NOT_FOUND);
  if (kind && kind !== before.kind) throw Errors.badRequest(CHANNEL_KIND_FIXED_MESSAGE);
  await checkChannelValue(before.kind, value, { allowEmpty: true, allowPrivateWebhooks: deps.allowPrivateWebhooks });
  const updated = await locked(deps.db, userId, async (trx, tier) => {
    const row = await repo.getChannel(trx, userId, channelId, { lock: true });
    if (!row) throw Errors.notFound(CHANNEL_NOT_FOUND);
    if (value) {
      if (!row.value) await checkRoom(trx, userId, tier, row.kind);
      else if (row.kind === 'phone' && !tier.limits.sms) throw Errors.badRequest(MONITORING_MESSAGES.maxChannels);
      await checkNotDuplicate(trx, userId, row.kind, value, row.id);
    }
    const secret = row.kind === 'webhook' && !row.secret ? newWebhookSecret() : undefined;
    // Another address (or none): confirmed anew, unless it is the account's verified one.
    const readdressed = row.kind === 'email' && !(row.value && value && sameTarget('email', row.value, value));
    const verifiedAt = readdressed ? (value ? await verifiedAtFor(trx, userId, value) : null) : undefined;
    const channel = await repo.updateChannel(trx, userId, row.id, { value, secret, verifiedAt });
    return secret ? { channel, secret } : { channel };
  });
  return { ...updated, channel: await confirmIfNeeded(deps.confirmations, updated.channel) };
}

/**
 * /v2 update-channel: the newest channel of the kind gets the value (created when there
 * is none and the value is not empty).
 */
export async function upsertNewestChannel(deps: ChannelsDeps, userId: string, key: unknown, rawValue: string): Promise<{ channel?: ChannelRow; secret?: string }> {
  const kind = parseChannelKind(key);
  const newest = (await repo.listChannels(deps.db, userId)).find((row) => row.kind === kind);
  if (newest) return updateChannel(deps, userId, newest.id, kind, rawValue);
  if (!rawValue.trim()) {
    await checkChannelValue(kind, '', { allowEmpty: true, allowPrivateWebhooks: deps.allowPrivateWebhooks });
    return {};
  }
  return addChannel(deps, userId, kind, rawValue);
}
