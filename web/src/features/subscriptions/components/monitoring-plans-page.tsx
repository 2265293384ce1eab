import { useState } from 'react';
import { Link } from 'wouter';
import { PlanChannels } from '@/features/monitoring';
import { useUser } from '@/features/user';
import { usePageTitle } from '@/hooks/use-page-title';
import { useProducts } from '../api/use-products';
import { formatUsd, MAX_DOMAINS, planSku } from '../lib/catalogue';
import { CouponField, PlanCard, PurchaseHeader, QuantityField, useGoToCheckout } from './purchase-parts';
import './subscriptions.css';

/** /subscriptions/monitoring: Start (free), Domain Monitoring, Enterprise Level, and the notification channels. */
export function MonitoringPlansPage() {
  usePageTitle('Monitoring Subscription');
  const { priceOf } = useProducts();
  const { data: user } = useUser();
  const [domains, setDomains] = useState('1');
  const goToCheckout = useGoToCheckout();
  const domainCount = Number(domains);

  const buyDomains = (recurring: boolean) => {
    if (!domains || domainCount === 0) return;
    goToCheckout(planSku('domain', recurring, 'monthly'), domainCount);
  };

  return (
    <div className="page purchase-page">
      <PurchaseHeader title="Monitoring Plans" lead="Get told when your usernames, emails, phones, names or domains show up in a new breach." />
      <div className="plan-grid">
        <PlanCard
          title="Start"
          subtitle="Free, unlimited time"
          price="Free"
          per="forever"
          features={[
            [true, '10 monitoring tasks'],
            [true, 'Email notifications'],
            [false, 'Webhook notifications'],
            [false, 'Domain monitoring'],
          ]}
        >
          <Link href="/monitoring/manage" className="button button-secondary button-block">
            Start Monitoring
          </Link>
        </PlanCard>
        <PlanCard
          title="Domain Monitoring"
          subtitle="Per domain, billed monthly"
          price={formatUsd(priceOf(planSku('domain', false, 'monthly')))}
          per="/ domain / month"
          popular
          features={[
            [true, 'Every address of your domains'],
            [true, 'Email notifications'],
            [true, 'Webhook notifications'],
            [true, 'Reports for each new breach'],
          ]}
        >
          <QuantityField label="Number of domains" value={domains} max={MAX_DOMAINS} onChange={setDomains} />
          <button type="button" className="button button-secondary button-block" aria-label="Purchase Domain Monitoring" onClick={() => buyDomains(false)}>
            Purchase
          </button>
          <button
            type="button"
            className="button button-primary button-block"
            aria-label="Subscribe & Save 10% (Domain Monitoring)"
            onClick={() => buyDomains(true)}
          >
            Subscribe &amp; Save 10%
          </button>
          <p className="plan-sub-price muted">{formatUsd(priceOf(planSku('domain', true, 'monthly')))} / domain / month, renews automatically</p>
        </PlanCard>
        <PlanCard
          title="Enterprise Level"
          subtitle="Billed monthly"
          price={formatUsd(priceOf(planSku('enterprise', false, 'monthly')))}
          per="/ month"
          features={[
            [true, '500 monitoring tasks'],
            [true, 'Domain tasks'],
            [true, 'Email and webhook notifications'],
            [true, 'Monitoring API'],
          ]}
        >
          {user?.is_enterprise && <p className="plan-current">You are on Enterprise</p>}
          <button
            type="button"
            className="button button-secondary button-block"
            aria-label="Purchase Enterprise Level"
            onClick={() => goToCheckout(planSku('enterprise', false, 'monthly'), 1)}
          >
            Purchase
          </button>
          <button
            type="button"
            className="button button-primary button-block"
            aria-label="Subscribe & Save 10% (Enterprise Level)"
            onClick={() => goToCheckout(planSku('enterprise', true, 'monthly'), 1)}
          >
            Subscribe &amp; Save 10%
          </button>
          <p className="plan-sub-price muted">{formatUsd(priceOf(planSku('enterprise', true, 'monthly')))} / month, renews automatically</p>
        </PlanCard>
      </div>
      <PlanChannels />
      <section className="card coupon-card">
        <CouponField />
      </section>
    </div>
  );
}
