/** The daily notices' SQL (daily-notices.ts says what they are): one insert per kind, deduplicated by key. */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../db/schema';

export interface DailyNoticeSettings {
  /** EXPIRY_NOTICE_DAYS. */
  expiryDays: number;
  /** LOW_CREDITS_THRESHOLD. */
  lowCredits: number;
}

export type DailyNoticeKind = 'search-expiration' | 'monitoring-expiration' | 'enterprise-expiration' | 'low-search-credits' | 'low-whois-credits';

/**
 * Writes the notices of `day` (YYYYMMDD); returns how many of each were new. One
 * statement per kind, each an `INSERT … SELECT … ON CONFLICT (dedupe_key) DO NOTHING`.
 */
export async function insertDailyNotices(db: Kysely<Database>, day: string, settings: DailyNoticeSettings): Promise<Record<DailyNoticeKind, number>> {
  const window = sql`now() + make_interval(days => ${settings.expiryDays})`;
  const date = (column: string) => sql`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD')`;
  // A plan renews when its subscription is recurring and not cancelled.
  const renews = (plan: string) =>
    sql`exists (select 1 from subscriptions s where s.user_id = u.id and s.plan = ${plan}::text and s.recurring and s.cancel_requested_at is null)`;
  const key = (kind: DailyNoticeKind) => sql`${kind}::text || ':' || u.id || ':' || ${day}::text`;
  // Low-credit notices go to accounts that have bought or spent credits of that kind (a
  // ledger row), not to every account at zero.
  const usesCredits = (kind: string) => sql`exists (select 1 from credit_ledger l where l.user_id = u.id and l.kind = ${kind}::text)`;
  /** The low-credit notice of one kind of credits (search, whois): same rule, its own columns. */
  const lowCredits = (credit: 'search' | 'whois', label: string) => {
    const kind = `low-${credit}-credits` as const;
    const balance = sql.ref(`u.${credit}_credits`);
    return sql`
      insert into notifications (user_id, type, data, link, dedupe_key)
      select u.id, ${kind}::text, ${`Your ${label} credits are low: `}::text || ${balance} || ' left.', ${`/subscriptions/${credit}-credits`}::text, ${key(kind)}
        from users u
       where u.closed_at is null and ${sql.ref(`u.notify_low_${credit}_credits`)} and not u.elevated
         and ${balance} <= ${settings.lowCredits}::integer and ${usesCredits(credit)}
      on conflict (dedupe_key) do nothing`;
  };

  const statements: Record<DailyNoticeKind, RawBuilder<unknown>> = {
    'search-expiration': sql`
      insert into notifications (user_id, type, data, link, dedupe_key)
      select u.id, 'search-expiration', 'Your search subscription expires on ' || ${date('u.search_subscribed_until')} || '.', '/subscriptions/search', ${key('search-expiration')}
        from users u
       where u.closed_at is null and u.notify_search_expiration and not u.elevated
         and u.search_subscribed_until > now() and u.search_subscribed_until <= ${window}
         and not (u.search_is_recurring and ${renews('search')})
      on conflict (dedupe_key) do nothing`,
    'monitoring-expiration': sql`
      insert into notifications (user_id, type, data, link, dedupe_key)
      select distinct on (u.id) u.id, 'monitoring-expiration', 'Your domain monitoring subscription expires on ' || ${date('s.period_end')} || '.', '/subscriptions/monitoring', ${key('monitoring-expiration')}
        from subscriptions s join users u on u.id = s.user_id
       where u.closed_at is null and u.notify_monitoring_expiration and s.plan = 'domain'
         and s.period_end > now() and s.period_end <= ${window}
         and (not s.recurring or s.cancel_requested_at is not null)
       order by u.id, s.period_end
      on conflict (dedupe_key) do nothing`,
    'enterprise-expiration': sql`
      insert into notifications (user_id, type, data, link, dedupe_key)
      select u.id, 'enterprise-expiration', 'Your enterprise plan expires on ' || ${date('u.enterprise_until')} || '.', '/subscriptions', ${key('enterprise-expiration')}
        from users u
       where u.closed_at is null and u.notify_enterprise_expiration and not u.is_enterprise
         and u.enterprise_until > now() and u.enterprise_until <= ${window}
         and not ${renews('enterprise')}
      on conflict (dedupe_key) do nothing`,
    'low-search-credits': lowCredits('search', 'search'),
    'low-whois-credits': lowCredits('whois', 'WHOIS'),
  };
  const written = {} as Record<DailyNoticeKind, number>;
  for (const [kind, statement] of Object.entries(statements) as [DailyNoticeKind, RawBuilder<unknown>][]) {
    const result = await statement.execute(db);
    written[kind] = Number(result.numAffectedRows ?? 0);
  }
  return written;
}
