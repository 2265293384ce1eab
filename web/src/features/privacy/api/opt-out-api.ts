import { api } from '@/lib/api';
import type { OptOutHoldings } from '@common/opt-out-wire';

export type { OptOutHoldings };

export const requestOptOut = (email: string) => api.post<{ success: boolean }>('/privacy/opt-out', { email }, 'none');
export const previewOptOut = (t: string) => api.post<OptOutHoldings>('/privacy/opt-out/preview', { t }, 'none');
export const confirmOptOut = (t: string) => api.post<{ removed: number; remaining: number }>('/privacy/opt-out/confirm', { t }, 'none');
export const undoOptOut = (t: string) => api.post<{ restored: number }>('/privacy/opt-out/undo', { t }, 'none');
