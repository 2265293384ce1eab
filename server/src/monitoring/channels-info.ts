/**
 * GET /notification-channels/info: per kind null when the tier has no such channel, else
 * the newest channel of that kind (`value` '' and `id` null when there is none) and
 * `available`: whether one more can be added or turned on now.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import type { ChannelKind } from '../common/monitoring-rules';
import type { ChannelInfo, ChannelsInfo } from '../common/monitoring-wire';
import * as repo from './channels-repository';
import type { ChannelRow } from './channels-repository';
import { readTier, readUsage } from './tiers';
import { awaitingConfirmation, channelActive } from './channel-state';

function kindInfo(rows: ChannelRow[], kind: ChannelKind, inTier: boolean, room: boolean): ChannelInfo | null {
  if (!inTier) return null;
  const newest = rows.find((row) => row.kind === kind);
  return {
    available: room,
    value: newest?.value ?? '',
    id: newest ? String(newest.id) : null,
    updated: newest ? newest.updated.toISOString() : null,
    active: newest ? channelActive(newest) : false,
    awaiting_confirmation: newest ? awaitingConfirmation(newest) : false,
  };
}

export async function channelsInfo(db: Kysely<Database>, userId: string): Promise<ChannelsInfo> {
  const tier = await readTier(db, userId);
  if (!tier) throw Errors.unauthorized();
  const [rows, usage] = await Promise.all([repo.listChannels(db, userId), readUsage(db, userId)]);
  const channelRoom = usage.channels < tier.limits.max_notification_channels;
  return {
    email: kindInfo(rows, 'email', tier.limits.max_notification_channels > 0, channelRoom),
    phone: kindInfo(rows, 'phone', tier.limits.sms && tier.limits.max_notification_channels > 0, channelRoom),
    webhook: kindInfo(rows, 'webhook', tier.limits.max_webhooks > 0, usage.webhooks < tier.limits.max_webhooks),
  };
}
