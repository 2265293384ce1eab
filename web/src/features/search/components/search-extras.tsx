import { Link } from 'wouter';
import { BookIcon, CardIcon, InfoIcon, LockIcon } from '@/components/icons';
import { HelpCards, type HelpCard } from '@/components/help-cards';
import type { SearchResponse } from '../api/search-api';

const numbers = new Intl.NumberFormat('en-US');
const decimals = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** Milliseconds as "12.4 ms" or, from one second on, "1.52 s". */
export function formatElapsed(ms: number): string {
  return ms >= 1000 ? `${decimals.format(ms / 1000)} s` : `${decimals.format(ms)} ms`;
}

/** Total, assets searched and elapsed time, with thousands separators. */
export function StatsBar({ response }: { response: SearchResponse | null }) {
  const stats = [
    { label: 'Results', value: response ? numbers.format(response.total_results) : '—', id: 'total' },
    { label: 'Assets searched', value: response ? numbers.format(response.assets_searched) : '—', id: 'assets' },
    { label: 'Elapsed time', value: response ? formatElapsed(response.elapsed_time) : '—', id: 'elapsed' },
  ];
  return (
    <dl className="search-stats" data-testid="search-stats">
      {stats.map((stat) => (
        <div key={stat.id} className="search-stat">
          <dt>{stat.label}</dt>
          <dd data-testid={`stat-${stat.id}`}>{stat.value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The results area of a user without an active search subscription. An account
 * with API credits and no subscription is told what its credits are for: they pay for API
 * searches, and both the dashboard and the API need the subscription.
 */
export function SubscriptionNotice({ apiCredits = 0 }: { apiCredits?: number }) {
  return (
    <section className="card empty-state subscription-notice" data-testid="subscription-notice">
      <span className="empty-icon">
        <LockIcon width={28} height={28} />
      </span>
      <h2>You need an active subscription in order to view results</h2>
      <p className="muted">The counts above show what a search finds; a subscription shows the records themselves.</p>
      {apiCredits > 0 && (
        <p className="muted" data-testid="credits-need-subscription">
          Your {apiCredits.toLocaleString('en-US')} API credits pay for searches through the API, one credit each. They do not
          replace the subscription: the dashboard and the API both need an active Search subscription to show records.
        </p>
      )}
      <p className="muted" data-testid="one-term-rule">
        Without a subscription a search holds one term: one field and one value. AND, OR, wildcards, regular expressions and
        source filters need a subscription.
      </p>
      <Link href="/subscriptions/search" className="button button-primary">
        Subscribe
      </Link>
    </section>
  );
}

const CARDS: HelpCard[] = [
  { href: '/documentation/search-guide', title: 'Search Guide', text: 'Fields, wildcards, regex and filters', icon: BookIcon },
  { href: '/documentation/faq', title: 'FAQ', text: 'Answers to common questions', icon: InfoIcon },
  { href: '/subscriptions', title: 'Subscriptions', text: 'Plans, credits and your API key', icon: CardIcon },
];

export function InfoCards() {
  return <HelpCards cards={CARDS} className="search-info" />;
}
