import { useState } from 'react';
import { Link } from 'wouter';
import { CardIcon, ChevronDownIcon, PrinterIcon } from '@/components/icons';
import { Modal } from '@/components/modal';
import { Paginator } from '@/components/paginator';
import { useUser } from '@/features/user';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { usePageTitle } from '@/hooks/use-page-title';
import { PAYMENT_HISTORY_PAGE_SIZE, type Invoice } from '../api/subscriptions-api';
import { usePaymentHistory } from '../api/use-payment-history';
import { LoadFailed } from '@/components/load-failed';
import {
  extraInfoLines,
  invoiceAmount,
  invoiceDate,
  invoiceItem,
  invoiceLines,
  paymentLines,
  printInvoice,
  SELLER_LINE,
  shortInvoiceId,
} from '../lib/invoice';
import './subscriptions.css';

/** /subscriptions/payment-history: the user's invoices, 20 a page, each expandable and printable. */
export function PaymentHistoryPage() {
  usePageTitle('Payment History');
  const [page, setPage] = useState(1);
  const { data, isLoading, error, mutate, clear } = usePaymentHistory(page);
  const { data: user } = useUser();
  const [confirming, setConfirming] = useState(false);
  const [clearing, runClear] = useGuardedSubmit();
  const [open, setOpen] = useState<string | null>(null);
  const pages = data ? Math.max(1, Math.ceil(data.total_results / PAYMENT_HISTORY_PAGE_SIZE)) : 1;
  const invoices = data?.invoices ?? [];

  const confirmClear = () =>
    runClear(async () => {
      const cleared = await clear();
      setConfirming(false);
      if (cleared) {
        setPage(1);
        setOpen(null);
      }
    });

  return (
    <div className="page history-page">
      <header className="page-header subs-header">
        <div>
          <h1>Payment History</h1>
          <p className="page-lead">
            Your invoices. What we keep is set under{' '}
            <Link href="/profile" className="link">
              Payment History Settings
            </Link>{' '}
            on your profile.
          </p>
        </div>
        {invoices.length > 0 && (
          <button type="button" className="button button-danger" onClick={() => setConfirming(true)}>
            Clear Payment History
          </button>
        )}
      </header>

      {!data && error && !isLoading ? (
        <LoadFailed title="Could not load your payment history" retry={mutate} />
      ) : !data ? (
        <section className="card status-card" aria-busy={isLoading}>
          {isLoading && <span className="spinner" />}
          <p className="muted">{isLoading ? 'Loading payment history…' : 'Payment history is not available right now.'}</p>
        </section>
      ) : invoices.length === 0 ? (
        <section className="card empty-state" data-testid="history-empty">
          <span className="empty-icon">
            <CardIcon width={28} height={28} />
          </span>
          <h2>Payments History is Clear</h2>
          <p className="muted">
            No invoices to show. If you have made purchases, saving invoices may be disabled in your Payment History Settings.
          </p>
          <div className="history-empty-links">
            <Link href="/profile" className="button button-secondary">
              Payment History Settings
            </Link>
            <Link href="/subscriptions" className="button button-primary">
              Back to Subscriptions
            </Link>
          </div>
        </section>
      ) : (
        <>
          <section className="card history-list" aria-label="Invoices">
            <div className="history-row history-columns desktop-only" aria-hidden="true">
              <span />
              <span>Invoice ID</span>
              <span>Item</span>
              <span>Quantity</span>
              <span>Date</span>
              <span>Amount</span>
            </div>
            <ul>
              {invoices.map((invoice) => (
                <InvoiceRow
                  key={invoice.id}
                  invoice={invoice}
                  recipient={user?.email ?? ''}
                  expanded={open === invoice.id}
                  onToggle={() => setOpen(open === invoice.id ? null : invoice.id)}
                />
              ))}
            </ul>
          </section>
          <Paginator page={page} pages={pages} onPage={setPage} />
        </>
      )}

      {confirming && (
        <Modal
          title="Clear Payment History"
          onClose={() => setConfirming(false)}
          actions={
            <>
              <button type="button" className="button button-secondary" onClick={() => setConfirming(false)}>
                Cancel
              </button>
              <button type="button" className="button button-danger" disabled={clearing} onClick={() => void confirmClear()}>
                Confirm
              </button>
            </>
          }
        >
          <p>Every saved invoice is deleted. This cannot be undone.</p>
        </Modal>
      )}
    </div>
  );
}

function InvoiceRow({ invoice, recipient, expanded, onToggle }: { invoice: Invoice; recipient: string; expanded: boolean; onToggle: () => void }) {
  const panelId = `invoice-${invoice.id}`;
  return (
    <li className={`history-item${expanded ? ' expanded' : ''}`} data-testid="invoice-row">
      <button type="button" className="history-row" aria-expanded={expanded} aria-controls={panelId} onClick={onToggle}>
        <ChevronDownIcon className="history-chevron" width={16} height={16} aria-hidden="true" />
        <span className="history-id" title={invoice.id}>
          <span className="history-label">Invoice </span>
          {shortInvoiceId(invoice.id)}
        </span>
        <span className="history-item-name">{invoiceItem(invoice)}</span>
        <span className="history-quantity">
          <span className="history-label">Qty </span>
          {Number(invoice.quantity).toLocaleString('en-US')}
        </span>
        <span className="history-date">{invoiceDate(invoice)}</span>
        <span className="history-amount">{invoiceAmount(invoice)}</span>
      </button>
      {expanded && <InvoiceView id={panelId} invoice={invoice} recipient={recipient} />}
    </li>
  );
}

function Lines({ lines }: { lines: [string, string][] }) {
  return (
    <dl className="invoice-lines">
      {lines.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function InvoiceView({ id, invoice, recipient }: { id: string; invoice: Invoice; recipient: string }) {
  const extra = extraInfoLines(invoice.extra_info);
  return (
    <div className="invoice-view" id={id} role="region" aria-label={`Invoice ${invoice.id}`} data-testid="invoice-view">
      <div className="invoice-parties">
        <p>{SELLER_LINE}</p>
        <p>To: {recipient}</p>
      </div>
      <div className="invoice-columns">
        <section>
          <h3>Invoice</h3>
          <Lines lines={invoiceLines(invoice)} />
        </section>
        {extra.length > 0 && (
          <section>
            <h3>Billing details</h3>
            <Lines lines={extra} />
          </section>
        )}
        <section>
          <h3>Payment</h3>
          <Lines lines={paymentLines(invoice)} />
          <p className="invoice-balance">Balance Due: $0</p>
        </section>
      </div>
      <button type="button" className="button button-secondary button-small" onClick={() => printInvoice(invoice, recipient)}>
        <PrinterIcon width={15} height={15} />
        Print
      </button>
    </div>
  );
}
