import { useState, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import { CheckIcon, CloseIcon } from '@/components/icons';
import { purchaseQuery } from '@/features/checkout';
import { clampQuantityText } from '../lib/catalogue';

/** Goes to the card checkout of `sku` × `quantity`. */
export function useGoToCheckout(): (sku: string, quantity: number) => void {
  const [, navigate] = useLocation();
  return (sku, quantity) => navigate(`/checkout?${purchaseQuery(sku, quantity)}`);
}

/** Numeric text or empty, at most `max`. */
export function QuantityField({
  label,
  value,
  max,
  onChange,
  className = '',
}: {
  label: string;
  value: string;
  max: number;
  onChange: (value: string) => void;
  className?: string;
}) {
  return (
    <label className={`field quantity-field ${className}`}>
      <span className="field-label">{label}</span>
      <input
        className="input"
        inputMode="numeric"
        autoComplete="off"
        value={value}
        onChange={(event) => {
          const input = event.currentTarget;
          const next = clampQuantityText(input.value, max);
          // preact/compat skips the re-render when the state does not change ('3' → '3x' → '3'):
          // the field is put right here.
          if (input.value !== next) input.value = next;
          onChange(next);
        }}
      />
    </label>
  );
}

/** A coupon field exists; Apply does nothing and the discount stays 0. */
export function CouponField() {
  const [code, setCode] = useState('');
  return (
    <form className="coupon-field" onSubmit={(event) => event.preventDefault()}>
      <label className="field">
        <span className="field-label">Coupon code</span>
        <input className="input" autoComplete="off" value={code} onChange={(event) => setCode(event.currentTarget.value)} />
      </label>
      <button type="submit" className="button button-secondary">
        Apply
      </button>
    </form>
  );
}

export function PurchaseHeader({ title, lead }: { title: string; lead: string }) {
  return (
    <header className="page-header">
      <h1>{title}</h1>
      <p className="page-lead">{lead}</p>
    </header>
  );
}

/** One package of a plan page: name, price, features, then its controls. */
export function PlanCard({
  title,
  subtitle,
  price,
  per,
  popular = false,
  features,
  children,
}: {
  title: string;
  subtitle: string;
  price: string;
  per: string;
  popular?: boolean;
  features: [included: boolean, text: string][];
  children: ReactNode;
}) {
  const id = `plan-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <section className={`card plan-card${popular ? ' plan-popular' : ''}`} aria-labelledby={id}>
      <header className="plan-head">
        <h2 id={id}>{title}</h2>
        {popular && <span className="plan-badge">Popular</span>}
      </header>
      <p className="plan-subtitle muted">{subtitle}</p>
      <p className="plan-price">
        <span className="plan-amount">{price}</span> <span className="muted">{per}</span>
      </p>
      <ul className="plan-features">
        {features.map(([included, text]) => (
          <li key={text} className={included ? '' : 'plan-feature-no'}>
            {included ? <CheckIcon width={15} height={15} /> : <CloseIcon width={15} height={15} />}
            {text}
          </li>
        ))}
      </ul>
      <div className="plan-controls">{children}</div>
    </section>
  );
}
