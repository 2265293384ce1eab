import { useEffect, useRef, useState } from 'react';
import { Link, Redirect, useLocation, useSearch } from 'wouter';
import { CopyIcon } from '@/components/icons';
import { useProducts } from '@/features/subscriptions';
import { cryptoAllowed } from '@/features/subscriptions';
import { usePageTitle } from '@/hooks/use-page-title';
import { subscribeChannel } from '@/lib/realtime';
import { toast } from '@/lib/toast-store';
import { createCryptoInvoice, type CryptoInvoice, type CryptoPaymentOption } from '../api/checkout-api';
import { formatCountdown, useSecondsLeft } from '../lib/countdown';
import { purchaseQuery, readPurchaseParams, type PurchaseParams } from '../lib/purchase-params';
import { OrderSummary } from './order-summary';
import { QrCode } from './qr-code';
import './checkout.css';
import { onTabListKeyDown, tabProps } from '@/components/tabs';

const CURRENCY_NAMES: Record<string, string> = {
  btc: 'Bitcoin',
  ltc: 'Litecoin',
  xmr: 'Monero',
  bch: 'Bitcoin Cash',
  eth: 'Ethereum',
};

function formatRate(rate: number | string): string {
  const value = Number(rate);
  return Number.isFinite(value) ? `$${value.toLocaleString('en-US', { maximumFractionDigits: 8 })}` : `$${String(rate)}`;
}

/** Eth wallets read the bare address; the others the full payment string. */
export function qrPayload(option: CryptoPaymentOption): string {
  return option.currency === 'eth' ? option.paymentAddress : option.paymentFullString;
}

/** /crypto-checkout?p={sku}&q={quantity}: an invoice paid in crypto, completed over the websocket. */
export function CryptoCheckoutPage() {
  usePageTitle('Crypto Checkout');
  const purchase = readPurchaseParams(useSearch());
  if (!purchase) return <Redirect to="/search" replace />;
  if (!cryptoAllowed(purchase.sku)) return <Redirect to={`/checkout?${purchaseQuery(purchase.sku, purchase.quantity)}`} replace />;
  return <CryptoCheckout key={`${purchase.sku}:${purchase.quantity}`} purchase={purchase} />;
}

type InvoiceState = { state: 'none' } | { state: 'generating' } | { state: 'shown'; invoice: CryptoInvoice } | { state: 'failed' };

function CryptoCheckout({ purchase }: { purchase: PurchaseParams }) {
  const { sku, quantity } = purchase;
  const [, navigate] = useLocation();
  const { priceOf } = useProducts();
  const [invoice, setInvoice] = useState<InvoiceState>({ state: 'none' });
  const started = useRef(false);

  const generate = () => {
    setInvoice({ state: 'generating' });
    createCryptoInvoice(sku, quantity).then(
      (created) => setInvoice({ state: 'shown', invoice: created }),
      () => {
        toast.error('issue generating crypto payment information');
        setInvoice({ state: 'failed' });
      },
    );
  };

  useEffect(() => {
    // Once per page: a second invoice for the same visit would only confuse the payer.
    if (started.current) return;
    started.current = true;
    generate();
  }, []);

  const invoiceId = invoice.state === 'shown' ? invoice.invoice.id : null;
  useEffect(() => {
    if (!invoiceId) return;
    return subscribeChannel(`crypto-payment-${invoiceId}`, (data) => {
      if ((data as { status?: unknown } | null)?.status === 'complete') navigate(`/thank-you?p=${encodeURIComponent(sku)}`);
    });
  }, [invoiceId, sku, navigate]);

  return (
    <div className="page page-narrow checkout-page">
      <header className="page-header">
        <h1>Crypto Checkout</h1>
        <p className="page-lead">
          Pay with cryptocurrency, or{' '}
          <Link href={`/checkout?${purchaseQuery(sku, quantity)}`} className="link">
            go back to paying by card
          </Link>
          .
        </p>
      </header>
      <section className="card checkout-card" aria-label="Order">
        <OrderSummary purchase={purchase} price={priceOf(sku)} />
      </section>
      {invoice.state === 'generating' || invoice.state === 'none' ? (
        <section className="card status-card" aria-busy="true">
          <span className="spinner" />
          <p className="muted">Generating Invoice...</p>
        </section>
      ) : invoice.state === 'failed' ? (
        <section className="card status-card">
          <p className="muted">The payment information could not be generated.</p>
          <button type="button" className="button button-primary" onClick={generate}>
            Try again
          </button>
        </section>
      ) : (
        <InvoicePanel invoice={invoice.invoice} onRenew={generate} />
      )}
    </div>
  );
}

function InvoicePanel({ invoice, onRenew }: { invoice: CryptoInvoice; onRenew: () => void }) {
  // eth is not offered as a tab.
  const options = invoice.payment_options.filter((option) => option.currency !== 'eth');
  const [selected, setSelected] = useState(options[0]?.currency ?? '');
  const option = options.find((candidate) => candidate.currency === selected) ?? options[0];
  const secondsLeft = useSecondsLeft(invoice.expiration);

  const copy = async (text: string, what: string) => {
    try {
      await navigator.clipboard.writeText(text);
      toast.success(`Copied ${what}`);
    } catch {
      toast.error('Could not copy to the clipboard');
    }
  };

  // An expired invoice shows no address or QR code to pay to: a payment sent now could be lost.
  if (secondsLeft === 0 && !Number.isNaN(Date.parse(invoice.expiration ?? ''))) {
    return (
      <section className="card status-card" aria-label="Crypto payment" data-testid="crypto-expired" data-invoice-id={invoice.id}>
        <h2 className="status-title">This invoice expired</h2>
        <p className="muted" role="alert">
          Do not send a payment to its address. A new invoice has a new address and today's rate.
        </p>
        <button type="button" className="button button-primary" onClick={onRenew}>
          New invoice
        </button>
      </section>
    );
  }

  return (
    <section className="card crypto-invoice" aria-label="Crypto payment" data-testid="crypto-invoice" data-invoice-id={invoice.id}>
      <div className="crypto-tabs" role="tablist" aria-label="Currency" onKeyDown={onTabListKeyDown}>
        {options.map((candidate) => (
          <button
            key={candidate.currency}
            type="button"
            role="tab"
            {...tabProps(candidate === option)}
            className={`crypto-tab${candidate === option ? ' active' : ''}`}
            onClick={() => setSelected(candidate.currency)}
          >
            {candidate.currency.toUpperCase()}
          </button>
        ))}
      </div>
      {option ? (
        <div className="crypto-body" role="tabpanel" aria-label={CURRENCY_NAMES[option.currency] ?? option.currency}>
          <QrCode text={qrPayload(option)} label={`QR code to pay in ${option.currency.toUpperCase()}`} />
          <dl className="crypto-details">
            <div>
              <dt>Send exactly</dt>
              <dd data-testid="crypto-amount">
                {String(option.currencyAmount)} {option.currency.toUpperCase()}
                <button type="button" className="icon-button" aria-label="Copy amount" onClick={() => void copy(String(option.currencyAmount), 'amount')}>
                  <CopyIcon width={15} height={15} />
                </button>
              </dd>
            </div>
            <div>
              <dt>To address</dt>
              <dd className="crypto-address" data-testid="crypto-address">
                <code>{option.paymentAddress}</code>
                <button type="button" className="icon-button" aria-label="Copy address" onClick={() => void copy(option.paymentAddress, 'address')}>
                  <CopyIcon width={15} height={15} />
                </button>
              </dd>
            </div>
            <div>
              <dt>Rate</dt>
              <dd data-testid="crypto-rate">
                1 {option.currency.toUpperCase()} = {formatRate(option.usdRate)} USD
              </dd>
            </div>
            <div>
              <dt>Expires in</dt>
              <dd className={secondsLeft === 0 ? 'crypto-expired' : undefined} data-testid="crypto-countdown" aria-live="off">
                {formatCountdown(secondsLeft)}
              </dd>
            </div>
          </dl>
        </div>
      ) : (
        <p className="muted">No currency is available for this invoice.</p>
      )}
      <p className="muted crypto-note">
        This page moves on by itself once the payment is confirmed. Keep it open; confirmation can take a few minutes.
      </p>
    </section>
  );
}
