import { useEffect, useRef, useState } from 'react';
import { Link, Redirect, useLocation, useSearch } from 'wouter';
import { useProducts } from '@/features/subscriptions';
import { cryptoAllowed } from '@/features/subscriptions';
import { productDef, quantityProblem } from '@common/catalogue';
import { useUser, type User } from '@/features/user';
import { usePageTitle } from '@/hooks/use-page-title';
import { ApiError } from '@/lib/api';
import { toast } from '@/lib/toast-store';
import { checkHealth, createCheckout } from '../api/checkout-api';
import { useCardConfig } from '../api/use-card-config';
import { loadCardProvider, type CardEvent, type CardProvider } from '../lib/card-provider';
import { purchaseQuery, readPurchaseParams, type PurchaseParams } from '../lib/purchase-params';
import { OrderSummary } from './order-summary';
import './checkout.css';

/** The processor script loads this long after the page. */
export const CARD_SCRIPT_DELAY_MS = 400;

/** Enterprise users cannot re-buy enterprise; a recurring search subscriber cannot buy search time. */
export function alreadySubscribed(purchase: PurchaseParams, user: User | undefined): boolean {
  const { parsed } = purchase;
  if (!user || parsed.type !== 'plan') return false;
  return (parsed.kind === 'enterprise' && user.is_enterprise) || (parsed.kind === 'search' && user.search_is_recurring);
}

/** /checkout?p={sku}&q={quantity}: the card provider's overlay. */
export function CheckoutPage() {
  usePageTitle('Checkout');
  const purchase = readPurchaseParams(useSearch());
  if (!purchase) return <Redirect to="/search" replace />;
  return <CardCheckout key={`${purchase.sku}:${purchase.quantity}`} purchase={purchase} />;
}

function CardCheckout({ purchase }: { purchase: PurchaseParams }) {
  const { sku, quantity } = purchase;
  const [, navigate] = useLocation();
  const { data: user } = useUser();
  const { priceOf } = useProducts();
  const [delayPassed, setDelayPassed] = useState(false);
  const { data: config, error: configError } = useCardConfig(delayPassed);
  const [provider, setProvider] = useState<CardProvider | null>(null);
  const [generating, setGenerating] = useState(false);
  const completed = useRef(false);
  const crypto = cryptoAllowed(sku);

  useEffect(() => {
    const timer = setTimeout(() => setDelayPassed(true), CARD_SCRIPT_DELAY_MS);
    return () => clearTimeout(timer);
  }, []);

  useEffect(() => {
    if (configError) toast.error('Issue with processor');
  }, [configError]);

  // The callback lives as long as the provider: it reads the page's current SKU through a ref.
  const skuRef = useRef(sku);
  skuRef.current = sku;
  useEffect(() => {
    if (!config) return;
    let cancelled = false;
    const onEvent = (event: CardEvent) => {
      if (event.name === 'checkout.completed') completed.current = true;
      else if (event.name === 'checkout.closed' && completed.current) navigate(`/thank-you?p=${encodeURIComponent(skuRef.current)}`);
      else if (event.name === 'checkout.error') toast.error('Issue with payment processor');
    };
    loadCardProvider(config, onEvent).then(
      (loaded) => !cancelled && setProvider(() => loaded),
      () => !cancelled && toast.error('Issue with processor'),
    );
    return () => {
      cancelled = true;
    };
  }, [config, navigate]);

  const subscribed = alreadySubscribed(purchase, user);
  // The server's own rule: a quantity past the product's maximum is never offered for payment.
  const product = productDef(sku);
  const tooMany = product ? quantityProblem(product, quantity) : undefined;
  const label = generating
    ? 'Generating Invoice...'
    : subscribed
      ? 'You are already subscribed'
      : !provider || !config || !user
        ? 'Loading...'
        : crypto
          ? 'Purchase with Fiat'
          : 'Purchase';

  const purchaseWithCard = async () => {
    if (generating || subscribed || tooMany || !provider || !config || !user) return;
    setGenerating(true);
    try {
      if (!(await checkHealth())) {
        toast.error('Issue with API');
        return;
      }
      const priceId = config.price_ids[sku];
      if (!priceId) {
        toast.error('Issue with processor');
        return;
      }
      let checkoutId: string;
      try {
        ({ checkout_id: checkoutId } = await createCheckout(sku, quantity));
      } catch (error) {
        toast.error(error instanceof ApiError && error.status < 500 ? error.message : 'Issue with processor');
        return;
      }
      completed.current = false;
      try {
        provider.Checkout.open({ items: [{ priceId, quantity }], customer: { email: user.email }, customData: { checkout_id: checkoutId } });
      } catch {
        toast.error('Issue with processor');
      }
    } finally {
      setGenerating(false);
    }
  };

  return (
    <div className="page page-narrow checkout-page">
      <header className="page-header">
        <h1>Checkout</h1>
        <p className="page-lead">Review your order, then pay by card in the secure payment window.</p>
      </header>
      <section className="card checkout-card" aria-label="Order">
        <OrderSummary purchase={purchase} price={priceOf(sku)} />
        {tooMany && (
          <p className="checkout-problem" role="alert" data-testid="checkout-quantity-problem">
            {tooMany}.
          </p>
        )}
        <div className="checkout-actions">
          <button
            type="button"
            className="button button-primary button-block"
            data-testid="card-purchase"
            disabled={Boolean(tooMany) || (label !== 'Purchase with Fiat' && label !== 'Purchase')}
            onClick={() => void purchaseWithCard()}
          >
            {label}
          </button>
          {crypto && !tooMany && (
            <Link href={`/crypto-checkout?${purchaseQuery(sku, quantity)}`} className="button button-secondary button-block">
              Purchase With Crypto
            </Link>
          )}
        </div>
        <p className="checkout-note muted">
          Card payments are processed by our payment provider; we never see your card number. Purchases come with a 30-day
          money-back guarantee.
        </p>
      </section>
      <Link href={backLink(purchase)} className="link checkout-back">
        ← Back to plans
      </Link>
    </div>
  );
}

/** The purchase page a SKU is sold on. */
export function backLink({ parsed }: PurchaseParams): string {
  if (parsed.type === 'credits') return `/subscriptions/${parsed.kind}`;
  return parsed.kind === 'search' ? '/subscriptions/search' : '/subscriptions/monitoring';
}
