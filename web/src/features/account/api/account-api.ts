import { stepUpProof } from '@/lib/step-up';
import { api } from '@/lib/api';

/** The names POST /user/update-notification-setting accepts. */
export type NotificationSetting =
  | 'search_expiration'
  | 'monitoring_expiration'
  | 'enterprise_expiration'
  | 'low_search_credits'
  | 'low_whois_credits'
  | 'store_invoices'
  | 'store_extra_invoice_data';

export function updateNotificationSetting(setting: NotificationSetting, set: boolean) {
  return api.post<{ success: boolean }>('/user/update-notification-setting', { setting, set });
}

/** The billing details printed on invoices while "Save extra invoice details" is on. */
export interface InvoiceDetails {
  name: string;
  company: string;
  address: string;
  vat_id: string;
}

export const getInvoiceDetails = () => api.get<InvoiceDetails>('/user/invoice-details');
export const saveInvoiceDetails = (details: InvoiceDetails) => api.post<InvoiceDetails>('/user/invoice-details', details);

/** `code`: a current authentication code (or recovery code) when two-factor is on. */
export function updatePassword(password: string, newPassword: string, code?: string) {
  const proof = stepUpProof(code);
  return api.post<{ success: boolean }>('/authentication/update-password', { password, new_password: newPassword, ...proof });
}

/** Mails a /close-account?t=… link to the user. */
export function requestAccountClosure() {
  return api.post<{ success: boolean }>('/user/account-closure-request');
}

/** `code`: a current authentication code (or recovery code) when two-factor is on. */
export function closeAccount(token: string, code?: string) {
  const proof = stepUpProof(code);
  return api.post<{ success: boolean }>('/user/account-closure-final', { token, ...proof });
}
