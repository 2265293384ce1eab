/**
 * Confirmation of email alert channels (docs/monitoring.md 'Email channel
 * confirmation'): an email channel gets no alert until its address is confirmed by a mailed
 * link, unless it is the account's own verified sign-in address. The link's token is stored
 * as its SHA-256, lives VERIFY_TOKEN_TTL_HOURS and works once; a resend replaces it.
 * The link opens a small page whose button confirms (a mail scanner following the link
 * confirms nothing), like the List-Unsubscribe page.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../config';
import type { Database } from '../db/schema';
import { type MailService, MailTemplates } from '../mail/mail-service';
import { hashToken, newOpaqueToken } from '../infra/secrets';
import * as repo from './channels-repository';

export const CONFIRM_CHANNEL_PATH = '/monitoring/confirm-channel';
/** At most one confirmation mail per channel in this time (Resend confirmation answers 429 before). */
export const CONFIRM_RESEND_INTERVAL_MS = 60_000;

export interface ChannelConfirmations {
  /** Mails a new confirmation link for an email channel awaiting confirmation; false when it needs none. */
  send(channel: { id: string; value: string }): Promise<boolean>;
  /** The channel a live link is for (nothing changes). */
  peek(token: string): Promise<{ id: string; value: string } | undefined>;
  /** Confirms the channel of a live link and voids the link. */
  confirm(token: string): Promise<{ id: string; value: string } | undefined>;
}

export function createChannelConfirmations(deps: { db: Kysely<Database>; mail: MailService; config: Config }): ChannelConfirmations {
  const { db, config } = deps;
  const valid = (token: string) => /^[A-Za-z0-9_-]{20,100}$/.test(token);
  return {
    async send(channel) {
      const token = newOpaqueToken();
      const expiresAt = new Date(Date.now() + config.VERIFY_TOKEN_TTL_HOURS * 3_600_000);
      if (!(await repo.storeConfirmation(db, channel.id, hashToken(token), expiresAt))) return false;
      const url = `${config.publicUrl}${CONFIRM_CHANNEL_PATH}?t=${token}`;
      await deps.mail.send(MailTemplates.confirmAlertChannel(channel.value, config.BRAND, url, config.VERIFY_TOKEN_TTL_HOURS));
      return true;
    },
    peek: async (token) => (valid(token) ? repo.findConfirmation(db, hashToken(token)) : undefined),
    confirm: async (token) => (valid(token) ? repo.consumeConfirmation(db, hashToken(token)) : undefined),
  };
}
