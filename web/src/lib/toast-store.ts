import type { ReactNode } from 'react';
import { randomToken } from '@common/obfuscation';
import { createStore } from './store';

export type ToastType = 'success' | 'error' | 'info';

export interface Toast {
  /** 16 random characters. */
  id: string;
  type: ToastType;
  children: ReactNode;
  /** Milliseconds before it dismisses itself; the countdown pauses while hovered. */
  duration: number;
}

export const DEFAULT_TOAST_MS = 3300;

const toasts = createStore<readonly Toast[]>([]);

export function showToast(type: ToastType, children: ReactNode, duration = DEFAULT_TOAST_MS): string {
  const id = randomToken(16);
  toasts.set([...toasts.get(), { id, type, children, duration }]);
  return id;
}

export function dismissToast(id: string): void {
  toasts.set(toasts.get().filter((toast) => toast.id !== id));
}

export const toast = {
  success: (children: ReactNode, duration?: number) => showToast('success', children, duration),
  error: (children: ReactNode, duration?: number) => showToast('error', children, duration),
  info: (children: ReactNode, duration?: number) => showToast('info', children, duration),
};

/** Shows validation messages as one error toast, one per line; true when there were any. */
export function toastErrors(messages: string[]): boolean {
  if (messages.length) showToast('error', messages.join('\n'));
  return messages.length > 0;
}

export function useToasts(): readonly Toast[] {
  return toasts.use();
}
