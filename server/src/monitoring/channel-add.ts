/** Adding a channel (docs/monitoring.md "Channel"): it must fit the tier; a webhook's secret is answered here and never again. */
import * as repo from './channels-repository';
import type { ChannelRow } from './channels-repository';
import { checkChannelValue, parseChannelKind, storedChannelValue } from './channel-input';
import { checkNotDuplicate, checkRoom, confirmIfNeeded, locked, newWebhookSecret, verifiedAtFor, type ChannelsDeps } from './channel-writes';

export async function addChannel(deps: ChannelsDeps, userId: string, key: unknown, rawValue: string): Promise<{ channel: ChannelRow; secret?: string }> {
  const kind = parseChannelKind(key);
  const value = storedChannelValue(rawValue);
  await checkChannelValue(kind, value, { allowEmpty: false, allowPrivateWebhooks: deps.allowPrivateWebhooks });
  const added = await locked(deps.db, userId, async (trx, tier) => {
    await checkRoom(trx, userId, tier, kind);
    await checkNotDuplicate(trx, userId, kind, value);
    const secret = kind === 'webhook' ? newWebhookSecret() : null;
    const verifiedAt = kind === 'email' ? await verifiedAtFor(trx, userId, value) : null;
    const channel = await repo.insertChannel(trx, { userId, kind, value, secret, verifiedAt });
    return secret ? { channel, secret } : { channel };
  });
  return { ...added, channel: await confirmIfNeeded(deps.confirmations, added.channel) };
}
