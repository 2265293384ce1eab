import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Link, useSearch } from 'wouter';
import { CheckIcon, SparkIcon } from '@/components/icons';
import { productName } from '@/features/subscriptions';
import { refreshUser } from '@/features/user';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { usePageTitle } from '@/hooks/use-page-title';
import { toast } from '@/lib/toast-store';
import { EVENT_CODE_MIN_LENGTH, redeemEventCode, type GrantedProduct } from '../api/event-codes-api';
import './event-codes.css';

/** /event-codes: redeem a code; `?code=` fills the field and submits it at once. */
export function EventCodesPage() {
  usePageTitle('Event Codes');
  const queryCode = new URLSearchParams(useSearch()).get('code') ?? '';
  const [code, setCode] = useState(queryCode);
  const [granted, setGranted] = useState<GrantedProduct[] | null>(null);
  const [busy, run] = useGuardedSubmit();
  const autoSubmitted = useRef(false);

  const submit = (value: string) => {
    const trimmed = value.trim();
    if (trimmed.length < EVENT_CODE_MIN_LENGTH) return;
    void run(async () => {
      const products = await redeemEventCode(trimmed);
      if (!products) {
        toast.error('Invalid event code');
        return;
      }
      setGranted(products);
      void refreshUser();
    });
  };

  useEffect(() => {
    if (autoSubmitted.current || !queryCode) return;
    autoSubmitted.current = true;
    submit(queryCode);
    // Only the code the page was opened with submits by itself.
  }, []);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit(code);
  };

  if (granted) {
    return (
      <div className="page page-narrow">
        <section className="card status-card event-code-success">
          <span className="empty-icon event-code-success-icon">
            <CheckIcon width={28} height={28} />
          </span>
          <h1>Event code applied successfully</h1>
          <ul className="event-code-grants" aria-label="Granted products" data-testid="event-code-grants">
            {granted.map((product, index) => (
              <li key={`${product.sku}-${index}`}>
                <span className="event-code-product">{productName(product.sku)}</span>
                <code>{product.sku}</code>
                <span className="event-code-quantity">× {Number(product.quantity).toLocaleString('en-US')}</span>
              </li>
            ))}
          </ul>
          <Link href="/subscriptions" className="button button-primary">
            View Subscriptions
          </Link>
        </section>
      </div>
    );
  }

  return (
    <div className="page page-narrow">
      <header className="page-header">
        <h1>Event Codes</h1>
        <p className="page-lead">Got a code from an event or a partner? Redeem it for credits or search time.</p>
      </header>
      <section className="card">
        <form className="event-code-form" onSubmit={onSubmit}>
          <span className="empty-icon event-code-icon" aria-hidden="true">
            <SparkIcon width={24} height={24} />
          </span>
          <label className="field event-code-field">
            <span className="field-label">Event code</span>
            <input
              className="input"
              name="event-code"
              autoComplete="off"
              spellCheck={false}
              placeholder="Enter your code"
              value={code}
              onChange={(event) => setCode(event.currentTarget.value)}
            />
            <span className="event-code-hint muted">At least {EVENT_CODE_MIN_LENGTH} characters.</span>
          </label>
          <button type="submit" className="button button-primary" disabled={busy || code.trim().length < EVENT_CODE_MIN_LENGTH}>
            {busy ? 'Submitting…' : 'Submit'}
          </button>
        </form>
      </section>
    </div>
  );
}
