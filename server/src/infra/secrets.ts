import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { storeSecretOnce } from './secrets-repository';

/** A URL-safe random token with 256 bits of entropy. */
export function newOpaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Tokens and API keys are stored as SHA-256: they are random, so no slow hash is needed. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function hmac(secret: string, value: string): string {
  return createHmac('sha256', secret).update(value).digest('hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * A secret generated once and shared by every instance through the database
 * (first writer wins), unless the operator provides one.
 */
export async function loadOrCreateSecret(db: Kysely<Database>, name: string, provided?: string): Promise<string> {
  if (provided) return provided;
  return storeSecretOnce(db, name, randomBytes(48).toString('base64url'));
}
