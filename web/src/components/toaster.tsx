import { useEffect, useRef, useState } from 'react';
import { dismissToast, useToasts, type Toast } from '@/lib/toast-store';
import { AlertIcon, CheckIcon, CloseIcon, InfoIcon } from './icons';

const ICONS = { success: CheckIcon, error: AlertIcon, info: InfoIcon };

function ToastItem({ toast }: { toast: Toast }) {
  const [paused, setPaused] = useState(false);
  // Time left survives pauses: hovering stops the clock, leaving restarts it.
  const remaining = useRef(toast.duration);

  useEffect(() => {
    if (paused) return;
    const startedAt = Date.now();
    const timer = setTimeout(() => dismissToast(toast.id), remaining.current);
    return () => {
      clearTimeout(timer);
      remaining.current -= Date.now() - startedAt;
    };
  }, [paused, toast.id]);

  const Icon = ICONS[toast.type];
  return (
    <div
      className={`toast toast-${toast.type}`}
      // Errors interrupt (alert); the others are read by the toaster's polite live region.
      role={toast.type === 'error' ? 'alert' : undefined}
      data-toast-id={toast.id}
      onMouseEnter={() => setPaused(true)}
      onMouseLeave={() => setPaused(false)}
      // The keyboard pauses it too: the clock stops while its Dismiss button has the focus.
      onFocus={() => setPaused(true)}
      onBlur={() => setPaused(false)}
    >
      <Icon className="toast-icon" />
      <div className="toast-body">{toast.children}</div>
      <button type="button" className="toast-close" aria-label="Dismiss" onClick={() => dismissToast(toast.id)}>
        <CloseIcon width={14} height={14} />
      </button>
    </div>
  );
}

/**
 * The toasts' live region: always in the page (a region added with its content is not
 * reliably read), polite, announcing what is added.
 */
export function Toaster() {
  const toasts = useToasts();
  return (
    <div className="toaster" aria-live="polite" aria-relevant="additions text">
      {toasts.map((toast) => (
        <ToastItem key={toast.id} toast={toast} />
      ))}
    </div>
  );
}
