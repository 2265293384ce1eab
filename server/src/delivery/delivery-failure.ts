/**
 * A delivery given up (docs/monitoring.md "Delivery"): dead, with an inbox notice
 * (`delivery-failed`) and a mail to the account address; the channel's fail_streak grows.
 */
import type { Kysely } from 'kysely';
import type { Config } from '../config';
import type { Database } from '../db/schema';
import { type MailService, MailTemplates } from '../mail/mail-service';
import * as repo from './delivery-repository';

export interface GiveUpDeps {
  db: Kysely<Database>;
  config: Config;
  mail: MailService;
  /** Attempts before giving up (the retry delays' count), named in the notice. */
  attempts: number;
  reportUrl(reportId: string): string;
}

/** How a channel is named to its owner: a webhook by its origin only (paths and queries may hold tokens). */
export function describeChannel(kind: string, target: string): string {
  if (kind === 'webhook') {
    try {
      return `webhook ${new URL(target).origin}`;
    } catch {
      return 'webhook';
    }
  }
  return kind === 'phone' ? `phone ${target}` : `email ${target}`;
}

export async function giveUp(deps: GiveUpDeps, delivery: repo.DeliveryToSend, reason: string, channelDisabled: boolean): Promise<void> {
  const target = delivery.channel?.value || delivery.target;
  const channel = describeChannel(delivery.kind, target);
  const notice = channelDisabled
    ? `An alert could not be delivered to your ${channel}, which answered 410 Gone: the channel was disabled.`
    : `An alert could not be delivered to your ${channel} after ${deps.attempts} attempts (last error: ${reason}).`;
  const becameDead = await repo.markDead(deps.db, { id: delivery.id, userId: delivery.userId, channelId: delivery.channel?.id ?? null, reportId: delivery.reportId }, reason, notice);
  // The owner's account address, unless the failed channel is that very address.
  if (becameDead && !(delivery.kind === 'email' && target.toLowerCase() === delivery.userEmail.toLowerCase())) {
    const why = channelDisabled ? 'it answered 410 Gone and was disabled' : reason;
    await deps.mail.send(MailTemplates.deliveryFailed(delivery.userEmail, deps.config.BRAND, channel, why, deps.reportUrl(delivery.reportId)));
  }
}
