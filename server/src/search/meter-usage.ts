/**
 * The search meter's counting in memory (search-meter.ts): a search's count and charge are
 * held while it runs and become pending usage once the engine took its query.
 */
import { balance, isFresh, searchesToday, type MeteredAccount, type MeterState } from './metered-account';

export function meterUsage(state: MeterState, limits: { dailyLimit: number; reserve: number }) {
  const { accounts } = state;
  const { dailyLimit, reserve } = limits;
  return {
    /**
     * Counts one search (and charges one credit for `chargeReason`) in memory when the
     * account stays comfortably within its limits; false when the exact path is needed. The
     * count and the charge are held until the search says what becomes of them (`release`):
     * a write never takes the usage of a search still running, so a query the engine refuses
     * leaves nothing behind, whenever the writes happen.
     */
    tryCount(a: MeteredAccount, chargeReason: string | undefined): boolean {
      if (!isFresh(a, Date.now())) return false;
      if (searchesToday(a) + 1 > dailyLimit - reserve) return false;
      if (chargeReason !== undefined && balance(a) - 1 < reserve) return false;
      a.heldSearches += 1;
      if (chargeReason !== undefined) a.heldCharges += 1;
      return true;
    },

    /**
     * Ends what `tryCount` held for one search: its count becomes pending usage when `count`,
     * and its charge (when `charge` names the reason it was taken for) when `keepCharge`;
     * whatever is not kept is dropped, so no credit moved and nothing was counted.
     */
    release(userId: string, outcome: { count: boolean; charge: string | undefined; keepCharge: boolean }) {
      const a = accounts.get(userId);
      if (!a || a.heldSearches === 0) return;
      a.heldSearches -= 1;
      if (outcome.count) a.pendingSearches += 1;
      if (outcome.charge === undefined || a.heldCharges === 0) return;
      a.heldCharges -= 1;
      if (outcome.keepCharge) a.pendingCharges.set(outcome.charge, (a.pendingCharges.get(outcome.charge) ?? 0) + 1);
    },
  };
}
