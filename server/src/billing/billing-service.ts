/**
 * The user's payment history (/user/payment-history, the invoice records). Invoices are written by the
 * payment's life (payments/payments.ts, markPaid) per the user's settings; here they are
 * read and cleared.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { Errors } from '../infra/errors';
import { centsToUsd } from '../common/catalogue';
import * as billingRepo from './billing-repository';

/** Payment history 20 a page. */
export const HISTORY_PAGE_SIZE = 20;
/** Far beyond any real history; keeps the offset bounded. */
export const HISTORY_MAX_PAGE = 10_000;

export interface InvoiceView {
  id: string;
  item_type: string;
  quantity: number;
  created: string;
  amount: number;
  method: string;
  extra_info?: Record<string, string>;
}

/** Billing details a user has printed on invoices ("Save extra invoice details"). */
export interface InvoiceDetails {
  name: string;
  company: string;
  address: string;
  vat_id: string;
}

function normaliseInvoiceDetails(input: Partial<Record<string, unknown>>): InvoiceDetails {
  const text = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
  return { name: text(input.name), company: text(input.company), address: text(input.address), vat_id: text(input.vat_id) };
}

export function createBillingService(db: Kysely<Database>) {
  return {
    /** `extra_info` only while the user keeps extra invoice data (the answer's `extra_data`), and only where stored. */
    async history(userId: string, page: number): Promise<{ invoices: InvoiceView[]; total_results: number; extra_data: boolean }> {
      const settings = await billingRepo.getInvoiceSettings(db, userId);
      if (!settings) throw Errors.unauthorized();
      const [rows, total] = await Promise.all([
        billingRepo.listInvoices(db, userId, { limit: HISTORY_PAGE_SIZE, offset: (page - 1) * HISTORY_PAGE_SIZE }),
        billingRepo.countInvoices(db, userId),
      ]);
      const extraData = settings.store_extra_invoice_data;
      return {
        invoices: rows.map((row) => ({
          id: row.id,
          item_type: row.item_type,
          quantity: row.quantity,
          created: row.created.toISOString(),
          amount: centsToUsd(row.amount_cents),
          method: row.method,
          ...(extraData && row.extra_info ? { extra_info: row.extra_info } : {}),
        })),
        total_results: total,
        extra_data: extraData,
      };
    },

    /** The billing details to print on invoices, each '' when not given. */
    async invoiceDetails(userId: string): Promise<InvoiceDetails> {
      const row = await billingRepo.getInvoiceDetails(db, userId);
      if (!row) throw Errors.unauthorized();
      return normaliseInvoiceDetails(row.invoice_details ?? {});
    },

    /** Saves them (trimmed; empty ones dropped); the next invoices print them while the setting is on. */
    async setInvoiceDetails(userId: string, input: Partial<InvoiceDetails>): Promise<InvoiceDetails> {
      const details = normaliseInvoiceDetails(input);
      const stored = Object.fromEntries(Object.entries(details).filter(([, value]) => value !== ''));
      if (!(await billingRepo.setInvoiceDetails(db, userId, stored))) throw Errors.unauthorized();
      return details;
    },

    async clearHistory(userId: string): Promise<void> {
      await billingRepo.deleteInvoices(db, userId);
    },
  };
}

export type BillingService = ReturnType<typeof createBillingService>;
