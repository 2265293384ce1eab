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

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
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
      const row = await options.db
        .insertInto('outbox')
        .values({ to_address: mail.to, subject: mail.subject, text_body: mail.text, html_body: mail.html ?? null })
        .returning('id')
        .executeTakeFirstOrThrow();
      await options.queues.enqueue('mail', { outboxId: String(row.id) }, `mail-${row.id}`);
    },
    async deliver(outboxId) {
      const row = await options.db
        .selectFrom('outbox')
        .select(['id', 'to_address', 'subject', 'text_body', 'html_body', 'sent_at'])
        .where('id', '=', outboxId)
        .executeTakeFirst();
      if (!row || row.sent_at) return;
      await options.db.updateTable('outbox').set((eb) => ({ attempts: eb('attempts', '+', 1) })).where('id', '=', outboxId).execute();
      if (transport) {
        try {
          await transport.sendMail({
            from: options.from,
            to: row.to_address,
            subject: row.subject,
            text: row.text_body,
            ...(row.html_body ? { html: row.html_body } : {}),
          });
        } catch (error) {
          await options.db
            .updateTable('outbox')
            .set({ last_error: String((error as Error).message).slice(0, 500) })
            .where('id', '=', outboxId)
            .execute();
          throw error;
        }
      } else if (out) {
        const links = extractLinks(row.text_body);
        out.write(`\n[outbox] mail to ${row.to_address}: ${row.subject}\n${links.map((l) => `  ${l}\n`).join('')}`);
      }
      await options.db.updateTable('outbox').set({ sent_at: new Date(), last_error: null }).where('id', '=', outboxId).execute();
    },
    close() {
      transport?.close();
    },
  };
}
