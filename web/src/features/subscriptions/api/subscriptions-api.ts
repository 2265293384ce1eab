import type { SubscriptionsSummary as SubscriptionsInfo } from '@common/subscriptions';
import { api } from '@/lib/api';

/** GET /subscriptions: the contract shared with the server. */
export type { DomainSlot as MonitoredDomain, SubscriptionsSummary as SubscriptionsInfo } from '@common/subscriptions';

export type CancelType = 'subscription-search' | 'subscription-monitoring' | 'subscription-domain';

export function getSubscriptions() {
  return api.get<SubscriptionsInfo>('/subscriptions');
}

/** Takes effect at the end of the period; `id` only for a domain subscription. */
export function cancelSubscription(type: CancelType, id = '') {
  return api.post<{ success: boolean }>('/subscriptions/cancel', { type, id });
}

/** The monitoring issue's route: sets the domain of a monitored-domain slot. */
export function setMonitoredDomain(id: string, domain: string) {
  return api.post<{ value?: string }>('/monitoring/set-domain', { id, domain });
}

/** POST /user/payment-history (20 a page). */
export interface Invoice {
  id: string;
  item_type: string;
  quantity: number;
  created: string;
  amount: number | string;
  method: string;
  extra_info?: InvoiceExtraInfo | null;
}

export interface InvoiceExtraInfo {
  name?: string | null;
  company?: string | null;
  phone?: string | null;
  address?: string | null;
  vat_id?: string | null;
}

export interface PaymentHistoryPage {
  invoices: Invoice[];
  total_results: number;
  extra_data: boolean;
}

export const PAYMENT_HISTORY_PAGE_SIZE = 20;

export function getPaymentHistory(page: number) {
  return api.post<PaymentHistoryPage>('/user/payment-history', { page });
}

/** Deletes the user's invoices (payments are kept by the server). */
export function clearPaymentHistory() {
  return api.post<{ success: boolean }>('/user/clear-payment-history');
}

export interface Product {
  sku: string;
  price: number;
}

export function getProducts() {
  return api.get<{ products: Product[] }>('/payments/get-products');
}
