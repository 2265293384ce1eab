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

export function updatePassword(password: string, newPassword: string) {
  return api.post<{ success: boolean }>('/authentication/update-password', { password, new_password: newPassword });
}

/** Mails a /close-account?t=… link to the user. */
export function requestAccountClosure() {
  return api.post<{ success: boolean }>('/user/account-closure-request');
}

export function closeAccount(token: string) {
  return api.post<{ success: boolean }>('/user/account-closure-final', { token });
}
