/**
 * Mail: every message is stored in the outbox first, then a `mail` job delivers it.
 * With SMTP_URL, delivery is nodemailer over SMTP (retried by the queue). Without it
 * (the embedded default), the outbox is the mailbox: the message stays stored and its
 * links are printed on the console (not the log) so a newcomer can verify an account;
 * `npm run admin -- outbox` lists it too.
 */
import nodemailer from 'nodemailer';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { QueueSystem } from '../infra/queues';
import * as outbox from './outbox-repository';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Extra headers (an alert's List-Unsubscribe and List-Unsubscribe-Post). */
  headers?: Record<string, string>;
}

export interface MailService {
  send(mail: OutgoingMail): Promise<void>;
  /** Job processor: delivers one outbox row; idempotent. */
  deliver(outboxId: string): Promise<void>;
  close(): void;
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
}): MailService {
  const transport = options.smtpUrl
    ? nodemailer.createTransport(options.smtpUrl, { connectionTimeout: 10_000, socketTimeout: 20_000 } as object)
    : undefined;
  const out = options.console === undefined ? process.stdout : options.console;
  return {
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
