import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import { constantTimeEqual, hashToken } from '../infra/secrets';
import * as userRepo from './user-repository';
import { enterpriseActive, searchActive, searchRecurring } from '../common/plan-status';

/**
 * API keys: 48 lower-case hex characters (192 bits), shown once when generated. Only
 * the SHA-256 is stored; lookups go through the hash's unique index, so comparison
 * time does not depend on how much of a guess is right. Afterwards the key is
 * displayed masked as "••••" plus its last four characters (`api_private_key`).
 */
export const API_KEY_PATTERN = /^[0-9a-f]{48}$/;

export function maskApiKey(hint: string | null): string | null {
  return hint ? `••••${hint}` : null;
}

export function createUserService(db: Kysely<Database>, hooks: { onApiKeyChanged?: (userId: string) => void } = {}) {
  return {
    async info(userId: string) {
      const user = await userRepo.getCurrentUser(db, userId);
      if (!user) throw Errors.unauthorized();
      const until = user.search_subscribed_until;
      return {
        email: user.email,
        created_at: user.created_at.toISOString(),
        search_access: searchActive(user),
        is_enterprise: enterpriseActive(user),
        whois_credits: user.whois_credits,
        search_credits: user.search_credits,
        api_private_key: maskApiKey(user.api_key_hint),
        has_notifications: user.has_notifications,
        search_is_recurring: searchRecurring(user),
        search_subscribed_until: until ? Math.floor(until.getTime() / 1000) : null,
        elevated: user.elevated,
        law_enforcement: user.law_enforcement,
      };
    },

    async profile(userId: string) {
      const p = await userRepo.getProfile(db, userId);
      if (!p) throw Errors.unauthorized();
      return {
        email: p.email,
        enterprise: enterpriseActive(p),
        enterprise_monitoring_expiration_notification: p.notify_enterprise_expiration,
        low_api_credits_notification: p.notify_low_search_credits,
        low_whois_credits_notification: p.notify_low_whois_credits,
        monitoring_expiration_notification: p.notify_monitoring_expiration,
        search_expiration_notification: p.notify_search_expiration,
        store_invoices: p.store_invoices,
        store_extra_invoice_data: p.store_extra_invoice_data,
      };
    },

    async updateSetting(userId: string, setting: userRepo.NotificationSetting, value: boolean) {
      await userRepo.setNotificationSetting(db, userId, setting, value);
    },

    /** Replaces the user's key; the old one stops working at once. */
    async regenerateApiKey(userId: string): Promise<string> {
      const key = randomBytes(24).toString('hex');
      await userRepo.setApiKey(db, userId, hashToken(key), key.slice(-4));
      hooks.onApiKeyChanged?.(userId);
      return key;
    },

    /** With a key: is it this user's current key? Without: does the user have one? */
    async checkApiKey(userId: string, presented: string | undefined): Promise<boolean> {
      const stored = await userRepo.getApiKeyHash(db, userId);
      if (!stored) return false;
      if (presented === undefined) return true;
      return API_KEY_PATTERN.test(presented) && constantTimeEqual(stored, hashToken(presented));
    },
  };
}

export type UserService = ReturnType<typeof createUserService>;
