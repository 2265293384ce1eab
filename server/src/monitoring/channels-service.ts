/**
 * Notification channels (docs/monitoring.md):
 * email, phone (the dashboard's SMS; `sms` is read as `phone`) and webhook. Values are
 * checked by the shared monitoring rules, a webhook URL also against the SSRF guard; an add (or turning a
 * disabled channel back on) must fit the tier, counted inside the transaction after the
 * user's row is locked: email and SMS channels together, webhooks apart, disabled channels
 * (value '') not at all. A webhook gets its signing secret, shown once. An email channel at
 * another address than the account's verified one awaits confirmation by a mailed link
 * (channels-confirmation.ts); so does an email channel whose address changes.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import { MONITORING_MESSAGES, channelKind, channelValueProblem, type ChannelKind } from '../common/monitoring-rules';
import type { ChannelsInfo, NotificationChannel } from '../common/monitoring-wire';
import { checkWebhookUrl } from '../infra/ssrf';
import * as repo from './channels-repository';
import type { ChannelRow } from './channels-repository';
import { readTier, readUsage, type TierState } from './tiers';
import { taskId } from './monitoring-service';
import { CONFIRM_RESEND_INTERVAL_MS, type ChannelConfirmations } from './channels-confirmation';

export const DUPLICATE_CHANNEL_MESSAGE = 'This notification channel exists already';
export const UNKNOWN_CHANNEL_KIND_MESSAGE = 'key must be one of email, sms, phone, webhook';
export const CHANNEL_NOT_FOUND = 'Channel not found';
export const CHANNEL_KIND_FIXED_MESSAGE = "A channel's kind cannot be changed; add a new channel";
export const NOTHING_TO_CONFIRM_MESSAGE = 'This channel needs no confirmation';

/** An email channel with an address that is not confirmed yet: it gets no alert. */
export function awaitingConfirmation(row: Pick<ChannelRow, 'kind' | 'value' | 'verified_at'>): boolean {
  return row.kind === 'email' && row.value !== '' && row.verified_at === null;
}

/** Active: it has a value and the system has not turned it off (a 410, an unsubscribe). */
export function channelActive(row: ChannelRow): boolean {
  return row.value !== '' && row.active;
}

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

/** Standard Webhooks: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The value as stored: trimmed, otherwise as entered. */
function storedValue(value: string): string {
  return value.trim();
}

/** Two values of one kind that reach the same place. */
function sameTarget(kind: ChannelKind, a: string, b: string): boolean {
  return kind === 'email' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

function parseKind(key: unknown): ChannelKind {
  const kind = channelKind(key);
  if (!kind) throw Errors.badRequest(UNKNOWN_CHANNEL_KIND_MESSAGE);
  return kind;
}

export function createChannelsService(deps: { db: Kysely<Database>; allowPrivateWebhooks: boolean; confirmations: ChannelConfirmations }) {
  const { db } = deps;

  /** An email address's confirmation state when it is set: confirmed at once when it is the account's verified address. */
  async function verifiedAtFor(trx: Transaction<Database>, userId: string, value: string): Promise<Date | null> {
    const account = await repo.readAccountEmail(trx, userId);
    return account?.verified && sameTarget('email', account.email, value) ? new Date() : null;
  }

  /** After the commit: the confirmation mail of a channel awaiting one that was never mailed (a new address). */
  async function confirmIfNeeded(channel: ChannelRow): Promise<ChannelRow> {
    if (!awaitingConfirmation(channel) || channel.confirm_sent_at) return channel;
    return (await deps.confirmations.send(channel)) ? { ...channel, confirm_sent_at: new Date() } : channel;
  }

  async function checkValue(kind: ChannelKind, value: string, options: { allowEmpty: boolean }): Promise<void> {
    if (!value && !options.allowEmpty) throw Errors.badRequest(MONITORING_MESSAGES.empty);
    const problem = channelValueProblem(kind, value);
    if (problem) throw Errors.badRequest(problem);
    if (kind === 'webhook' && value) {
      const refusal = await checkWebhookUrl(value, { allowPrivate: deps.allowPrivateWebhooks });
      if (refusal) throw Errors.badRequest(refusal);
    }
  }

  /** The tier's 'reached maximum' message when one more enabled channel of `kind` does not fit. */
  async function checkRoom(trx: Transaction<Database>, userId: string, tier: TierState, kind: ChannelKind): Promise<void> {
    if (kind === 'phone' && !tier.limits.sms) throw Errors.badRequest(MONITORING_MESSAGES.maxChannels);
    const usage = await readUsage(trx, userId);
    if (kind === 'webhook') {
      if (usage.webhooks >= tier.limits.max_webhooks) throw Errors.badRequest(MONITORING_MESSAGES.maxWebhooks);
    } else if (usage.channels >= tier.limits.max_notification_channels) {
      throw Errors.badRequest(MONITORING_MESSAGES.maxChannels);
    }
  }

  async function checkNotDuplicate(trx: Transaction<Database>, userId: string, kind: ChannelKind, value: string, exceptId?: string) {
    const rows = await repo.listChannels(trx, userId);
    if (rows.some((row) => row.id !== exceptId && row.kind === kind && row.value && sameTarget(kind, row.value, value))) {
      throw Errors.badRequest(DUPLICATE_CHANNEL_MESSAGE);
    }
  }

  async function locked<T>(userId: string, work: (trx: Transaction<Database>, tier: TierState) => Promise<T>): Promise<T> {
    return db.transaction().execute(async (trx) => {
      const tier = await readTier(trx, userId, { lock: true });
      if (!tier) throw Errors.unauthorized();
      return work(trx, tier);
    });
  }

  const service = {
    list: (userId: string) => repo.listChannels(db, userId),

    /**
     * GET /notification-channels/info: per kind null when the tier has no such channel,
     * else the newest channel of that kind (`value` '' and `id` null when there is none) and
     * `available`: whether one more can be added or turned on now.
     */
    async info(userId: string): Promise<ChannelsInfo> {
      const tier = await readTier(db, userId);
      if (!tier) throw Errors.unauthorized();
      const [rows, usage] = await Promise.all([repo.listChannels(db, userId), readUsage(db, userId)]);
      const block = (kind: ChannelKind, inTier: boolean, room: boolean) => {
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
      };
      const channelRoom = usage.channels < tier.limits.max_notification_channels;
      return {
        email: block('email', tier.limits.max_notification_channels > 0, channelRoom),
        phone: block('phone', tier.limits.sms && tier.limits.max_notification_channels > 0, channelRoom),
        webhook: block('webhook', tier.limits.max_webhooks > 0, usage.webhooks < tier.limits.max_webhooks),
      };
    },

    async get(userId: string, id: unknown): Promise<ChannelRow> {
      const key = taskId(id);
      const row = key ? await repo.getChannel(db, userId, key) : undefined;
      if (!row) throw Errors.notFound(CHANNEL_NOT_FOUND);
      return row;
    },

    /** Adds a channel; a webhook's secret is answered here and never again. */
    async add(userId: string, key: unknown, rawValue: string): Promise<{ channel: ChannelRow; secret?: string }> {
      const kind = parseKind(key);
      const value = storedValue(rawValue);
      await checkValue(kind, value, { allowEmpty: false });
      const added = await locked(userId, async (trx, tier) => {
        await checkRoom(trx, userId, tier, kind);
        await checkNotDuplicate(trx, userId, kind, value);
        const secret = kind === 'webhook' ? newWebhookSecret() : null;
        const verifiedAt = kind === 'email' ? await verifiedAtFor(trx, userId, value) : null;
        const channel = await repo.insertChannel(trx, { userId, kind, value, secret, verifiedAt });
        return secret ? { channel, secret } : { channel };
      });
      return { ...added, channel: await confirmIfNeeded(added.channel) };
    },

    /**
     * A new value for one of the user's channels: '' disables it; a
     * value for a disabled channel turns it on, which must fit the tier. The kind stays.
     */
    async update(userId: string, id: unknown, key: unknown, rawValue: string): Promise<{ channel: ChannelRow; secret?: string }> {
      const channelId = taskId(id);
      if (!channelId) throw Errors.notFound(CHANNEL_NOT_FOUND);
      const kind = key === undefined ? undefined : parseKind(key);
      const value = storedValue(rawValue);
      const before = await repo.getChannel(db, userId, channelId);
      if (!before) throw Errors.notFound(CHANNEL_NOT_FOUND);
      if (kind && kind !== before.kind) throw Errors.badRequest(CHANNEL_KIND_FIXED_MESSAGE);
      await checkValue(before.kind, value, { allowEmpty: true });
      const updated = await locked(userId, async (trx, tier) => {
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
      return { ...updated, channel: await confirmIfNeeded(updated.channel) };
    },

    /**
     * /v2 update-channel: the newest channel of the kind gets the value (created when there
     * is none and the value is not empty).
     */
    async upsertNewest(userId: string, key: unknown, rawValue: string): Promise<{ channel?: ChannelRow; secret?: string }> {
      const kind = parseKind(key);
      const newest = (await repo.listChannels(db, userId)).find((row) => row.kind === kind);
      if (newest) return service.update(userId, newest.id, kind, rawValue);
      if (!rawValue.trim()) {
        await checkValue(kind, '', { allowEmpty: true });
        return {};
      }
      return service.add(userId, kind, rawValue);
    },

    /**
     * Resend confirmation: a new link (the previous one stops working) for one of the
     * caller's email channels awaiting confirmation; 429 within CONFIRM_RESEND_INTERVAL_MS of
     * the last one.
     */
    async resendConfirmation(userId: string, id: unknown): Promise<ChannelRow> {
      const row = await service.get(userId, id);
      if (!awaitingConfirmation(row)) throw Errors.badRequest(NOTHING_TO_CONFIRM_MESSAGE);
      const wait = row.confirm_sent_at ? row.confirm_sent_at.getTime() + CONFIRM_RESEND_INTERVAL_MS - Date.now() : 0;
      if (wait > 0) throw Errors.tooManyRequests(wait);
      await deps.confirmations.send(row);
      return (await repo.getChannel(db, userId, row.id)) ?? row;
    },

    /** Deletes channels; every id must be the caller's (else 404 and nothing is deleted). */
    async remove(userId: string, rawIds: unknown[]): Promise<void> {
      const ids = rawIds.map(taskId);
      if (ids.some((id) => id === undefined)) throw Errors.notFound(CHANNEL_NOT_FOUND);
      const unique = [...new Set(ids as string[])];
      await db.transaction().execute(async (trx) => {
        if ((await repo.countOwned(trx, userId, unique)) !== unique.length) throw Errors.notFound(CHANNEL_NOT_FOUND);
        await repo.deleteChannels(trx, userId, unique);
      });
    },

    /** /v2 delete-channel: a kind (every channel of it) or a channel id, among `kinds` only
     * (a channel of another kind is as unknown as another user's). */
    async removeByKindOrId(userId: string, channel: string | number, kinds: readonly ChannelKind[]): Promise<void> {
      const kind = channelKind(channel);
      const rows = (await repo.listChannels(db, userId)).filter((row) => kinds.includes(row.kind));
      if (!kind) {
        const id = taskId(channel);
        if (id === undefined || !rows.some((row) => String(row.id) === id)) throw Errors.notFound(CHANNEL_NOT_FOUND);
        return service.remove(userId, [id]);
      }
      const ids = rows.filter((row) => row.kind === kind).map((row) => row.id);
      if (ids.length === 0) throw Errors.notFound(CHANNEL_NOT_FOUND);
      await service.remove(userId, ids);
    },
  };
  return service;
}

export type ChannelsService = ReturnType<typeof createChannelsService>;
