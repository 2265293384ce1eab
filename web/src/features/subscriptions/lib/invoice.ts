import { BRAND } from '@/lib/brand';
import { printInFrame, textElement } from '@/lib/print-frame';
import type { Invoice, InvoiceExtraInfo } from '../api/subscriptions-api';
import { formatUsd, productName } from './catalogue';

/** Long invoice ids show as their first 4 and last 4 characters. */
export function shortInvoiceId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 4)}…${id.slice(-4)}` : id;
}

export function invoiceItem(invoice: Invoice): string {
  return productName(invoice.item_type);
}

export function invoiceAmount(invoice: Invoice): string {
  const amount = Number(invoice.amount);
  return Number.isFinite(amount) ? formatUsd(amount) : String(invoice.amount);
}

export function invoiceDate(invoice: Invoice): string {
  const date = new Date(invoice.created);
  return Number.isNaN(date.getTime()) ? String(invoice.created) : date.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' });
}

export const SELLER_LINE = `From: ${BRAND} (.com/.net/.org)`;

const EXTRA_LABELS: [keyof InvoiceExtraInfo, string][] = [
  ['name', 'Name'],
  ['company', 'Company'],
  ['phone', 'Phone'],
  ['address', 'Address'],
  ['vat_id', 'VAT ID'],
];

/** The extra billing details that are present, labelled. */
export function extraInfoLines(extra: InvoiceExtraInfo | null | undefined): [string, string][] {
  if (!extra) return [];
  return EXTRA_LABELS.flatMap(([key, label]) => {
    const value = extra[key];
    return value ? [[label, String(value)] as [string, string]] : [];
  });
}

/** The lines of an invoice, in the order both the screen and the print show them. */
export function invoiceLines(invoice: Invoice): [string, string][] {
  return [
    ['Invoice ID', invoice.id],
    ['Date', invoiceDate(invoice)],
    ['Item', invoiceItem(invoice)],
    ['Quantity', Number(invoice.quantity).toLocaleString('en-US')],
    ['Amount', invoiceAmount(invoice)],
  ];
}

export function paymentLines(invoice: Invoice): [string, string][] {
  return [
    ['Method', invoice.method],
    ['Total', invoiceAmount(invoice)],
    ['Amount paid', invoiceAmount(invoice)],
  ];
}

export const PRINT_FRAME_ID = 'invoice-print-frame';

const PRINT_CSS = `
body { font: 13px/1.5 system-ui, sans-serif; color: #111; margin: 32px; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .06em; color: #555; margin: 20px 0 6px; }
p { margin: 0 0 4px; }
dl { display: grid; grid-template-columns: 140px 1fr; gap: 4px 12px; margin: 0; }
dt { font-weight: 600; color: #444; }
dd { margin: 0; overflow-wrap: anywhere; }
.balance { margin-top: 16px; font-weight: 700; font-size: 15px; }
`;

function definitionList(doc: Document, lines: [string, string][]): HTMLDListElement {
  const list = doc.createElement('dl');
  for (const [label, value] of lines) list.append(textElement(doc, 'dt', label), textElement(doc, 'dd', value));
  return list;
}

/** Prints this invoice alone, from a document built of text nodes. */
export function printInvoice(invoice: Invoice, recipient: string): void {
  printInFrame(PRINT_FRAME_ID, (doc) => {
    doc.title = `Invoice ${invoice.id}`;
    const style = doc.createElement('style');
    style.textContent = PRINT_CSS;
    doc.head.replaceChildren(style);
    const extra = extraInfoLines(invoice.extra_info);
    doc.body.replaceChildren(
      textElement(doc, 'h1', `Invoice ${invoice.id}`),
      textElement(doc, 'p', SELLER_LINE),
      textElement(doc, 'p', `To: ${recipient}`),
      textElement(doc, 'h2', 'Invoice'),
      definitionList(doc, invoiceLines(invoice)),
      ...(extra.length ? [textElement(doc, 'h2', 'Billing details'), definitionList(doc, extra)] : []),
      textElement(doc, 'h2', 'Payment'),
      definitionList(doc, paymentLines(invoice)),
      textElement(doc, 'p', 'Balance Due: $0', 'balance'),
    );
  });
}
