import { useEffect } from 'react';
import { Link, useSearch } from 'wouter';
import { CheckIcon } from '@/components/icons';
import { parseSku, productName } from '@/features/subscriptions';
import { refreshUser } from '@/features/user';
import { usePageTitle } from '@/hooks/use-page-title';
import './checkout.css';

/** /thank-you?p={sku}: after a card or crypto payment. */
export function ThankYouPage() {
  usePageTitle('Thank You');
  const sku = new URLSearchParams(useSearch()).get('p') ?? '';
  // Only a catalogue product is named: the address bar is not to be echoed ("purchased bogus").
  const known = parseSku(sku) !== null;

  // Credits and search access changed: the frame's credit count and the checks reload.
  useEffect(() => {
    void refreshUser();
  }, []);

  return (
    <div className="page page-narrow">
      <section className="card status-card thank-you">
        <span className="empty-icon thank-you-icon">
          <CheckIcon width={28} height={28} />
        </span>
        <h1>Thank you.</h1>
        <p data-testid="thank-you-message">Successfully purchased {known ? productName(sku) : 'your order'}</p>
        <p className="muted">It can take a minute for the purchase to show on your account.</p>
        <Link href="/subscriptions" className="button button-primary">
          Back to Subscriptions
        </Link>
      </section>
    </div>
  );
}
