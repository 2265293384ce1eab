/**
 * Mail: every message is stored in the outbox first, then a `mail` job delivers it.
 * With SMTP_URL, delivery is nodemailer over SMTP (retried by the queue). Without it
 * (the embedded default), the outbox is the mailbox: the message stays stored and its
 * links are printed on the console (not the log) so a newcomer can verify an account;
 * `npm run admin -- outbox` lists it too. That is a development convenience: with
 * NODE_ENV=production the configuration refuses to load without SMTP_URL. Stored mails
 * carry one-time links (reset, verification, closure, removal), so every row is purged once
 * the longest of those links has expired (the `mail-purge` task, hourly: MAIL_PURGE_EVERY_MS).
 */
import nodemailer from 'nodemailer';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Config } from '../config';
import type { QueueSystem } from '../infra/queues';
import * as outbox from './outbox-repository';
import type { OutgoingMail } from './templates';

/** The messages other features send: part of mail's public entry, with the service that sends them. */
export { MailTemplates } from './templates';
export type { OutgoingMail };

export interface MailService {
  send(mail: OutgoingMail): Promise<void>;
  /** Job processor: delivers one outbox row; idempotent. */
  deliver(outboxId: string): Promise<void>;
  /** Deletes the mails older than the retention; returns how many (the `mail-purge` task). */
  purgeExpired(): Promise<number>;
  close(): void;
}

/** How often the outbox is purged (a periodic task the runtime schedules). */
export const MAIL_PURGE_EVERY_MS = 3_600_000;

/** The longest lifetime of a one-time link a mail can carry: how long the outbox keeps a mail. */
export function outboxRetentionMs(config: Config): number {
  return Math.max(
    config.VERIFY_TOKEN_TTL_HOURS * 3_600_000,
    config.RESET_TOKEN_TTL_MINUTES * 60_000,
    config.CLOSURE_TOKEN_TTL_MINUTES * 60_000,
    config.ENTRY_REMOVAL_TOKEN_TTL_HOURS * 3_600_000,
  );
}

export function extractLinks(text: string): string[] {
  return text.match(/https?:\/\/[^\s<>"]+/g) ?? [];
}

export function createMailService(options: {
  db: Kysely<Database>;
  queues: QueueSystem;
  smtpUrl?: string;
  from: string;
  /** Where the outbox prints links when there is no SMTP server; null prints nothing. */
  console?: NodeJS.WritableStream | null;
  /** Mails older than this are deleted (outboxRetentionMs); unset keeps them. */
  retentionMs?: number;
}): MailService {
  const transport = options.smtpUrl
    ? nodemailer.createTransport(options.smtpUrl, { connectionTimeout: 10_000, socketTimeout: 20_000 } as object)
    : undefined;
  const out = options.console === undefined ? process.stdout : options.console;
  const { retentionMs } = options;
  const purgeExpired = async () =>
    retentionMs === undefined ? 0 : outbox.purgeOutboxBefore(options.db, new Date(Date.now() - retentionMs));
  return {
    purgeExpired,
    async send(mail) {
      const id = await outbox.insertOutboxMail(options.db, mail);
      await options.queues.enqueue('mail', { outboxId: id }, `mail-${id}`);
    },
    async deliver(outboxId) {
      const [row] = await outbox.readOutbox(options.db, { id: outboxId });
      if (!row || row.sent_at) return;
      await outbox.noteDeliveryAttempt(options.db, outboxId);
      if (transport) {
        try {
          await transport.sendMail({
            from: options.from,
            to: row.to_address,
            subject: row.subject,
            text: row.text_body,
            ...(row.html_body ? { html: row.html_body } : {}),
            ...(row.headers ? { headers: row.headers } : {}),
          });
        } catch (error) {
          await outbox.noteDeliveryError(options.db, outboxId, String((error as Error).message));
          throw error;
        }
      } else if (out) {
        const links = extractLinks(row.text_body);
        out.write(`\n[outbox] mail to ${row.to_address}: ${row.subject}\n${links.map((l) => `  ${l}\n`).join('')}`);
      }
      await outbox.markSent(options.db, outboxId);
    },
    close() {
      transport?.close();
    },
  };
}
