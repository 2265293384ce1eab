/**
 * How the channel calls read their input (docs/monitoring.md "Channel"): kinds (`sms` is
 * read as `phone`) and values, checked by the shared monitoring rules and a webhook URL
 * also against the SSRF guard, each refused with its own message.
 */
import { Errors } from '../infra/errors';
import { MONITORING_MESSAGES, channelKind, channelValueProblem, type ChannelKind } from '../common/monitoring-rules';
import { checkWebhookUrl } from '../infra/ssrf';

export const DUPLICATE_CHANNEL_MESSAGE = 'This notification channel exists already';
export const UNKNOWN_CHANNEL_KIND_MESSAGE = 'key must be one of email, sms, phone, webhook';
export const CHANNEL_NOT_FOUND = 'Channel not found';
export const CHANNEL_KIND_FIXED_MESSAGE = "A channel's kind cannot be changed; add a new channel";
export const NOTHING_TO_CONFIRM_MESSAGE = 'This channel needs no confirmation';

/** The value as stored: trimmed, otherwise as entered. */
export function storedChannelValue(value: string): string {
  return value.trim();
}

/** Two values of one kind that reach the same place. */
export function sameTarget(kind: ChannelKind, a: string, b: string): boolean {
  return kind === 'email' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

export function parseChannelKind(key: unknown): ChannelKind {
  const kind = channelKind(key);
  if (!kind) throw Errors.badRequest(UNKNOWN_CHANNEL_KIND_MESSAGE);
  return kind;
}

export async function checkChannelValue(kind: ChannelKind, value: string, options: { allowEmpty: boolean; allowPrivateWebhooks: boolean }): Promise<void> {
  if (!value && !options.allowEmpty) throw Errors.badRequest(MONITORING_MESSAGES.empty);
  const problem = channelValueProblem(kind, value);
  if (problem) throw Errors.badRequest(problem);
  if (kind === 'webhook' && value) {
    const refusal = await checkWebhookUrl(value, { allowPrivate: options.allowPrivateWebhooks });
    if (refusal) throw Errors.badRequest(refusal);
  }
}
