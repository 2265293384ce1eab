/**
 * Notification channels (docs/monitoring.md):
 * email, phone (the dashboard's SMS; `sms` is read as `phone`) and webhook. Values are
 * checked by the shared monitoring rules, a webhook URL also against the SSRF guard; an add (or turning a
 * disabled channel back on) must fit the tier, counted inside the transaction after the
 * user's row is locked: email and SMS channels together, webhooks apart, disabled channels
 * (value '') not at all. A webhook gets its signing secret, shown once. An email channel at
 * another address than the account's verified one awaits confirmation by a mailed link
 * (channels-confirmation.ts); so does an email channel whose address changes.
 * One module per use case (channels-info, channel-queries, channel-add, channel-update,
 * channel-resend, channel-delete); this service gives them their dependencies.
 */
import type { ChannelKind } from '../common/monitoring-rules';
import type { NotificationChannel } from '../common/monitoring-wire';
import type { ChannelRow } from './channels-repository';
import { awaitingConfirmation, channelActive } from './channel-state';
import type { ChannelsDeps } from './channel-writes';
import { channelsInfo } from './channels-info';
import { getChannel, listChannels } from './channel-queries';
import { addChannel } from './channel-add';
import { updateChannel, upsertNewestChannel } from './channel-update';
import { resendConfirmation } from './channel-resend';
import { removeChannels, removeChannelsByKindOrId } from './channel-delete';

export {
  CHANNEL_KIND_FIXED_MESSAGE,
  CHANNEL_NOT_FOUND,
  DUPLICATE_CHANNEL_MESSAGE,
  NOTHING_TO_CONFIRM_MESSAGE,
  UNKNOWN_CHANNEL_KIND_MESSAGE,
} from './channel-input';
export { awaitingConfirmation, channelActive } from './channel-state';

export function channelView(row: ChannelRow): NotificationChannel {
  return {
    id: String(row.id),
    key: row.kind,
    value: row.value,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
    active: channelActive(row),
    awaiting_confirmation: awaitingConfirmation(row),
    ...(row.secret ? { secret_hint: row.secret.slice(-4) } : {}),
    ...(row.disabled_reason ? { disabled_reason: row.disabled_reason } : {}),
  };
}

export function createChannelsService(deps: ChannelsDeps) {
  const { db } = deps;
  return {
    list: (userId: string) => listChannels(db, userId),
    info: (userId: string) => channelsInfo(db, userId),
    get: (userId: string, id: unknown) => getChannel(db, userId, id),
    /** Adds a channel; a webhook's secret is answered here and never again. */
    add: (userId: string, key: unknown, rawValue: string) => addChannel(deps, userId, key, rawValue),
    /** A new value for one of the user's channels: '' disables it; the kind stays. */
    update: (userId: string, id: unknown, key: unknown, rawValue: string) => updateChannel(deps, userId, id, key, rawValue),
    /** /v2 update-channel: the newest channel of the kind gets the value. */
    upsertNewest: (userId: string, key: unknown, rawValue: string) => upsertNewestChannel(deps, userId, key, rawValue),
    resendConfirmation: (userId: string, id: unknown) => resendConfirmation(deps, userId, id),
    /** Deletes channels; every id must be the caller's (else 404 and nothing is deleted). */
    remove: (userId: string, ids: unknown[]) => removeChannels(db, userId, ids),
    /** /v2 delete-channel: a kind (every channel of it) or a channel id, among `kinds` only. */
    removeByKindOrId: (userId: string, channel: string | number, kinds: readonly ChannelKind[]) => removeChannelsByKindOrId(db, userId, channel, kinds),
  };
}

export type ChannelsService = ReturnType<typeof createChannelsService>;
