/**
 * The two-factor key (app_secrets `two-factor-key`, the same for every instance): TOTP
 * secrets are stored encrypted with it (AES-256-GCM), recovery codes as HMACs under it.
 * Neither is ever logged.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { hmac, loadOrCreateSecret } from '../infra/secrets';

export interface TwoFactorSecrets {
  encrypt(plain: string): Promise<string>;
  decrypt(stored: string): Promise<string>;
  /** The HMAC of `value` under the key (how recovery codes are stored). */
  mac(value: string): Promise<string>;
}

export function createTwoFactorSecrets(db: Kysely<Database>): TwoFactorSecrets {
  let keyPromise: Promise<Buffer> | undefined;
  /** The encryption key of TOTP secrets and recovery-code HMACs, shared by every instance. */
  const key = () =>
    (keyPromise ??= loadOrCreateSecret(db, 'two-factor-key').then((secret) => createHash('sha256').update(secret).digest()));

  return {
    async encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', await key(), iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
    },

    async decrypt(stored) {
      const [version, iv, tag, body] = stored.split('.');
      if (version !== 'v1' || !iv || !tag || !body) throw new Error('two-factor secret: unknown format');
      const decipher = createDecipheriv('aes-256-gcm', await key(), Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },

    async mac(value) {
      return hmac((await key()).toString('base64url'), value);
    },
  };
}
