import { useState } from 'react';
import { usePageTitle } from '@/hooks/use-page-title';
import { useProducts } from '../api/use-products';
import { formatUsd, MAX_PERIODS, planSku, type Period } from '../lib/catalogue';
import { CouponField, PlanCard, PurchaseHeader, QuantityField, useGoToCheckout } from './purchase-parts';
import './subscriptions.css';

const PACKAGES: { period: Period; title: string; subtitle: string; per: string; unit: string; popular?: boolean }[] = [
  { period: 'weekly', title: 'Enthusiast', subtitle: '1 week · 7 days of search', per: '/ week', unit: 'Weeks' },
  { period: 'monthly', title: 'Monthly', subtitle: '1 month · 30 days of search', per: '/ month', unit: 'Months', popular: true },
  { period: 'yearly', title: 'Annually', subtitle: '1 year · 365 days of search', per: '/ year', unit: 'Years' },
];

const FEATURES: [boolean, string][] = [
  [true, 'Unlimited dashboard searches'],
  [true, 'Every data well, every field'],
  [true, 'Copy, print and CSV export'],
  [true, 'Public API access (with API credits)'],
];

/** /subscriptions/search: 'Choose your package'. */
export function SearchPlansPage() {
  usePageTitle('Search Subscription');
  const { priceOf } = useProducts();
  return (
    <div className="page purchase-page">
      <PurchaseHeader title="Choose your package" lead="Search every breach we hold. Buy time once, or subscribe and save 10%." />
      <div className="plan-grid">
        {PACKAGES.map((pack) => (
          <SearchPackage key={pack.period} {...pack} price={priceOf(planSku('search', false, pack.period))} subPrice={priceOf(planSku('search', true, pack.period))} />
        ))}
      </div>
      <section className="card coupon-card">
        <CouponField />
      </section>
    </div>
  );
}

function SearchPackage({
  period,
  title,
  subtitle,
  per,
  unit,
  popular,
  price,
  subPrice,
}: (typeof PACKAGES)[number] & { price: number; subPrice: number }) {
  const [quantity, setQuantity] = useState('1');
  const goToCheckout = useGoToCheckout();
  const count = Number(quantity);
  // Ignored if empty or 0.
  const buy = (recurring: boolean) => {
    if (!quantity || count === 0) return;
    // A subscription is one period, renewed: the provider bills it again, so its quantity is 1.
    goToCheckout(planSku('search', recurring, period), recurring ? 1 : count);
  };
  return (
    <PlanCard title={title} subtitle={subtitle} price={formatUsd(price)} per={per} popular={popular} features={FEATURES}>
      <QuantityField label={`${unit} (${title})`} value={quantity} max={MAX_PERIODS} onChange={setQuantity} />
      <button type="button" className="button button-secondary button-block" aria-label={`Purchase ${title}`} onClick={() => buy(false)}>
        Purchase
      </button>
      <button type="button" className="button button-primary button-block" aria-label={`Subscribe & Save 10% (${title})`} onClick={() => buy(true)}>
        Subscribe &amp; Save 10%
      </button>
      <p className="plan-sub-price muted">
        {formatUsd(subPrice)} {per}, renews automatically
      </p>
    </PlanCard>
  );
}
