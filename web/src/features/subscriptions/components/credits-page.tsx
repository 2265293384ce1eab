import { useState } from 'react';
import { Link } from 'wouter';
import { usePageTitle } from '@/hooks/use-page-title';
import { SUPPORT_URL } from '@/lib/brand';
import { useProducts } from '../api/use-products';
import {
  clampQuantityText,
  CREDIT_RANGES,
  formatUnitPrice,
  formatUsd,
  sliderStep,
  tierQuantities,
  totalPrice,
  type CreditKind,
  type CreditRange,
} from '../lib/catalogue';
import { CouponField, PurchaseHeader, QuantityField, useGoToCheckout } from './purchase-parts';
import './subscriptions.css';

const PAGES: Record<CreditKind, { title: string; lead: string; pageTitle: string; ranges: CreditRange[] }> = {
  'search-credits': {
    title: 'Search Credits',
    pageTitle: 'Search Credits',
    lead: 'Pay per query: 1 API search = 1 credit. Credits never expire.',
    ranges: [CREDIT_RANGES.standard, CREDIT_RANGES.enterprise],
  },
  'whois-credits': {
    title: 'WHOIS Credits',
    pageTitle: 'WHOIS Credits',
    lead: 'Credits for WHOIS lookups on the site and through the API. One price per credit.',
    ranges: [CREDIT_RANGES.whois],
  },
};

/** /subscriptions/search-credits and /subscriptions/whois-credits: tiers, quantity, slider, total. */
export function CreditsPage({ kind }: { kind: CreditKind }) {
  const page = PAGES[kind];
  usePageTitle(page.pageTitle);
  const { priceOf } = useProducts();
  const price = priceOf(kind);
  const [range, setRange] = useState<CreditRange>(page.ranges[0]!);
  const [quantity, setQuantity] = useState(String(tierQuantities(range)[0]));
  const goToCheckout = useGoToCheckout();
  const count = Number(quantity || '0');
  const total = totalPrice(price, count);
  const belowRange = count < range.min;
  const step = sliderStep(range);

  const chooseRange = (next: CreditRange) => {
    setRange(next);
    setQuantity(String(tierQuantities(next)[0]));
  };

  return (
    <div className="page purchase-page credits-page">
      <PurchaseHeader title={page.title} lead={page.lead} />
      <section className="card credits-card" aria-label="Choose credits">
        {page.ranges.length > 1 && (
          <div className="range-switch" role="radiogroup" aria-label="Plan">
            {page.ranges.map((candidate) => (
              <button
                key={candidate.id}
                type="button"
                role="radio"
                aria-checked={candidate === range}
                className={candidate === range ? 'active' : ''}
                onClick={() => chooseRange(candidate)}
              >
                {candidate.label}
              </button>
            ))}
          </div>
        )}

        <div className="credit-tiers" role="group" aria-label="Tiers">
          {tierQuantities(range).map((tier) => (
            <button
              key={tier}
              type="button"
              className={`credit-tier${tier === count ? ' active' : ''}`}
              aria-pressed={tier === count}
              onClick={() => setQuantity(String(tier))}
            >
              <span className="credit-tier-amount">{tier.toLocaleString('en-US')} CR</span>
              <span className="credit-tier-price">{formatUsd(totalPrice(price, tier))}</span>
            </button>
          ))}
        </div>

        <div className="credits-quantity">
          <QuantityField label="Quantity" value={quantity} max={range.max} onChange={setQuantity} />
          <label className="field credits-slider">
            <span className="field-label">
              Quantity slider ({range.min.toLocaleString('en-US')}–{range.max.toLocaleString('en-US')})
            </span>
            <input
              type="range"
              min={range.min}
              max={range.max}
              step={step}
              value={Math.max(range.min, count)}
              onChange={(event) => setQuantity(clampQuantityText(event.currentTarget.value, range.max))}
            />
          </label>
        </div>

        <dl className="credits-total">
          <div>
            <dt>Price per credit</dt>
            <dd>{formatUnitPrice(price)}</dd>
          </div>
          <div>
            <dt>Discount</dt>
            <dd>0%</dd>
          </div>
          <div className="credits-total-row">
            <dt>Total</dt>
            <dd data-testid="credits-total">{formatUsd(total)}</dd>
          </div>
        </dl>

        {belowRange && count > 0 && (
          <p className="credits-hint" role="status">
            {range.label} starts at {range.min.toLocaleString('en-US')} credits.
          </p>
        )}
        <button
          type="button"
          className="button button-primary button-block"
          disabled={count === 0 || belowRange}
          onClick={() => goToCheckout(kind, count)}
        >
          Purchase
        </button>
        <p className="muted credits-note">
          Need more than {range.max.toLocaleString('en-US')} credits?{' '}
          <a href={SUPPORT_URL} target="_blank" rel="noreferrer" className="link">
            Contact support
          </a>
          .
        </p>
        {kind === 'search-credits' && (
          <p className="credits-api-note" data-testid="search-subscription-note">
            Note: a <Link href="/subscriptions/search">Search subscription</Link> is needed to use the API; credits alone do not
            give search access.
          </p>
        )}
      </section>
      <section className="card coupon-card">
        <CouponField />
      </section>
    </div>
  );
}
