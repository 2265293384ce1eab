/**
 * Event codes: operators create a
 * code that grants catalogue products (`npm run admin -- event-code:create`); a signed-in
 * user redeems it once. Codes are compared case-insensitively: stored and looked up
 * upper-cased. Every failure is the same 400 'Invalid event code' (unknown, expired, used up,
 * already redeemed by this user: no oracle), and failures are throttled per account and per
 * address.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import type { RateLimiter } from '../infra/rate-limiter';
import { grantPurchase } from '../payments/grants-service';
import { productDef, quantityProblem } from '../common/catalogue';
import * as eventCodeRepo from './event-code-repository';
import type { EventCodeGrant } from './event-code-repository';

export type { EventCodeGrant };

/** At least 4 characters; at most 64, letters, digits, `_` and `-`. */
export const EVENT_CODE_PATTERN = /^[A-Za-z0-9_-]{4,64}$/;
export const EVENT_CODE_MAX_USES = 1_000_000;
/** Wrong guesses: 10 at once per account and per address, then one more a minute (10 per 10 minutes). */
export const WRONG_GUESSES = { ratePerSecond: 1 / 60, burst: 10 };
export const INVALID_EVENT_CODE = 'Invalid event code';

export function normalizeEventCode(code: string): string {
  return code.trim().toUpperCase();
}

/**
 * What an event code may grant: credits or a one-time plan (`nonsub`), within the
 * catalogue's quantity limits. Recurring plans need a provider that renews them.
 */
export function grantProblem(grant: EventCodeGrant): string | undefined {
  const product = productDef(grant.sku);
  if (!product) return `unknown SKU "${grant.sku}"`;
  if (product.kind === 'plan' && product.recurring) return `"${grant.sku}" renews through a payment provider; use its nonsub SKU`;
  const problem = quantityProblem(product, grant.quantity);
  return problem ? `${grant.sku}: ${problem}` : undefined;
}

/** `SKU:QTY` as the CLI takes it. */
export function parseGrant(text: string): EventCodeGrant | string {
  const match = /^([a-z-]+):(\d{1,9})$/.exec(text.trim());
  if (!match) return `"${text}" is not SKU:QUANTITY`;
  const grant = { sku: match[1]!, quantity: Number(match[2]) };
  return grantProblem(grant) ?? grant;
}

export interface NewEventCode {
  code: string;
  grants: EventCodeGrant[];
  maxUses: number;
  expiresAt: Date | null;
}

/** A message when the code cannot be created as given, else undefined. */
export function eventCodeProblem(input: NewEventCode, now = new Date()): string | undefined {
  if (!EVENT_CODE_PATTERN.test(input.code.trim())) return 'the code takes 4 to 64 letters, digits, "_" or "-"';
  if (input.grants.length === 0) return 'a code grants at least one product';
  const skus = input.grants.map((grant) => grant.sku);
  if (new Set(skus).size !== skus.length) return 'each SKU at most once per code';
  for (const grant of input.grants) {
    const problem = grantProblem(grant);
    if (problem) return problem;
  }
  if (!Number.isInteger(input.maxUses) || input.maxUses < 1 || input.maxUses > EVENT_CODE_MAX_USES) return `uses must be 1 to ${EVENT_CODE_MAX_USES}`;
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) return 'the expiry is in the past';
  return undefined;
}

/** Operators: stores the code upper-cased; throws 400 with the problem, or when the code exists. */
export async function createEventCode(db: Kysely<Database>, input: NewEventCode): Promise<NewEventCode> {
  const problem = eventCodeProblem(input);
  if (problem) throw Errors.badRequest(problem);
  const code = { ...input, code: normalizeEventCode(input.code) };
  if (!(await eventCodeRepo.insertEventCode(db, code))) throw Errors.badRequest(`event code ${code.code} exists already`);
  return code;
}

/** Thrown inside the redemption's transaction so that its use is given back. */
class NotRedeemable extends Error {}

export function createEventCodeService(deps: { db: Kysely<Database>; limiter: RateLimiter }) {
  const { db, limiter } = deps;

  /** One use, the user's redemption and the grants, all or nothing. Undefined when the code gives nothing. */
  async function redeemOnce(code: string, userId: string): Promise<EventCodeGrant[] | undefined> {
    try {
      return await db.transaction().execute(async (trx) => {
        const grants = await eventCodeRepo.takeUse(trx, code);
        if (!grants) throw new NotRedeemable();
        if (!(await eventCodeRepo.recordRedemption(trx, code, userId))) throw new NotRedeemable();
        for (const grant of grants) {
          await grantPurchase(trx, {
            userId,
            sku: grant.sku,
            quantity: grant.quantity,
            source: `event-code:${code}:${userId}:${grant.sku}`,
            reason: 'event-code',
          });
        }
        return grants;
      });
    } catch (error) {
      if (error instanceof NotRedeemable) return undefined;
      throw error;
    }
  }

  return {
    async redeem(userId: string, rawCode: string, ip: string): Promise<{ products: EventCodeGrant[] }> {
      const keys = [`event-code:fail:user:${userId}`, `event-code:fail:ip:${ip}`];
      for (const key of keys) {
        const decision = await limiter.take(key, WRONG_GUESSES, { peek: true });
        if (!decision.allowed) throw Errors.tooManyRequests(decision.retryAfterMs);
      }
      const code = normalizeEventCode(rawCode);
      const grants = EVENT_CODE_PATTERN.test(code) ? await redeemOnce(code, userId) : undefined;
      if (!grants) {
        for (const key of keys) await limiter.take(key, WRONG_GUESSES);
        throw Errors.badRequest(INVALID_EVENT_CODE);
      }
      return { products: grants.map(({ sku, quantity }) => ({ sku, quantity })) };
    },
  };
}

export type EventCodeService = ReturnType<typeof createEventCodeService>;
