/**
 * Signatures of alert delivery: Standard Webhooks (outbound webhooks), the signed
 * List-Unsubscribe token (no table: an HMAC of the channel id), and Twilio's
 * X-Twilio-Signature on status callbacks.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The secret's key bytes: base64 after the `whsec_` prefix (Standard Webhooks). */
export function webhookSecretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/** `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, the `webhook-signature` header. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', webhookSecretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The key of unsubscribe tokens, derived from a server secret (no table of tokens). */
export function unsubscribeKey(serverSecret: string): Buffer {
  return createHmac('sha256', serverSecret).update('list-unsubscribe').digest();
}

function unsubscribeMac(key: Buffer, channelId: string): string {
  return createHmac('sha256', key).update(`unsubscribe:${channelId}`).digest('base64url');
}

/** `{channelId}.{mac}`: names one email channel and cannot be forged or moved to another. */
export function unsubscribeToken(key: Buffer, channelId: string): string {
  return `${channelId}.${unsubscribeMac(key, channelId)}`;
}

/** The channel id a token names, or null when it is not one of ours. */
export function verifyUnsubscribeToken(key: Buffer, token: string): string | null {
  const match = /^(\d{1,19})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return null;
  return safeEqual(unsubscribeMac(key, match[1]!), match[2]!) ? match[1]! : null;
}

/** Twilio: base64 HMAC-SHA1(auth token, full URL + every POST parameter as key+value, keys sorted). */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, key) => acc + key + params[key], url);
  return createHmac('sha1', authToken).update(data).digest('base64');
}

export function verifyTwilioSignature(authToken: string, url: string, params: Record<string, string>, signature: string): boolean {
  return safeEqual(twilioSignature(authToken, url, params), signature);
}
