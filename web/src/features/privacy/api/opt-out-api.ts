import { api } from '@/lib/api';

export interface OptOutHoldings {
  email: string;
  total: number;
  wells: { name: string; records: number }[];
  truncated: boolean;
}

export const requestOptOut = (email: string) => api.post<{ success: boolean }>('/privacy/opt-out', { email }, 'none');
export const previewOptOut = (t: string) => api.post<OptOutHoldings>('/privacy/opt-out/preview', { t }, 'none');
export const confirmOptOut = (t: string) => api.post<{ removed: number; remaining: number }>('/privacy/opt-out/confirm', { t }, 'none');
