import { api } from '@/lib/api';

export interface OptOutHoldings {
  email: string;
  total: number;
  wells: { name: string; records: number }[];
  truncated: boolean;
  /** The address is opted out: its records are hidden (so `total` is 0), since `opted_out_since`. */
  opted_out: boolean;
  opted_out_since: string | null;
}

export const requestOptOut = (email: string) => api.post<{ success: boolean }>('/privacy/opt-out', { email }, 'none');
export const previewOptOut = (t: string) => api.post<OptOutHoldings>('/privacy/opt-out/preview', { t }, 'none');
export const confirmOptOut = (t: string) => api.post<{ removed: number; remaining: number }>('/privacy/opt-out/confirm', { t }, 'none');
export const undoOptOut = (t: string) => api.post<{ restored: number }>('/privacy/opt-out/undo', { t }, 'none');
