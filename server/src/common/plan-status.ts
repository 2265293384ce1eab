/**
 * What a user's plan columns mean right now: one home for the rules that /user/info,
 * /user/profile and GET /subscriptions all answer with. Purchases set the
 * columns (payments/grants-service.ts); operators set the flags (`is_enterprise`, `elevated`).
 */
export interface PlanColumns {
  elevated: boolean;
  search_subscribed_until: Date | null;
  search_is_recurring: boolean;
  is_enterprise: boolean;
  enterprise_until: Date | null;
}

function isFuture(date: Date | null, now: number): boolean {
  return date !== null && date.getTime() > now;
}

/** Search access: elevated accounts always; others until their paid period ends. */
export function searchActive(user: Pick<PlanColumns, 'elevated' | 'search_subscribed_until'>, now = Date.now()): boolean {
  return user.elevated || isFuture(user.search_subscribed_until, now);
}

/** A recurring search subscription whose period has not ended (a lapsed one renews nothing). */
export function searchRecurring(user: Pick<PlanColumns, 'search_is_recurring' | 'search_subscribed_until'>, now = Date.now()): boolean {
  return user.search_is_recurring && isFuture(user.search_subscribed_until, now);
}

/** Enterprise: the operator's flag, or an enterprise plan bought for a period not yet ended. */
export function enterpriseActive(user: Pick<PlanColumns, 'is_enterprise' | 'enterprise_until'>, now = Date.now()): boolean {
  return user.is_enterprise || isFuture(user.enterprise_until, now);
}
