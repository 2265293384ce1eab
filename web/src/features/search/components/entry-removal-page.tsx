import { useEffect, useRef, useState } from 'react';
import { Redirect, useLocation, useSearch as useQueryString } from 'wouter';
import { CheckIcon } from '@/components/icons';
import { usePageTitle } from '@/hooks/use-page-title';
import { toast } from '@/lib/toast-store';
import { removeEntry } from '../api/search-api';

export const REMOVAL_FAILED = 'could not remove entry, try again later.';
const REDIRECT_MS = 3000;

/** /entry-removal?ref=&v=: the mailed confirmation link. */
export function EntryRemovalPage() {
  usePageTitle('Entry Removal');
  const params = new URLSearchParams(useQueryString());
  const ref = params.get('ref');
  const v = params.get('v');
  const [, navigate] = useLocation();
  const [done, setDone] = useState(false);
  const started = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);

  useEffect(() => () => clearTimeout(timer.current), []);

  useEffect(() => {
    if (!ref || !v || started.current) return;
    started.current = true;
    removeEntry(ref, v).then(
      () => {
        setDone(true);
        timer.current = setTimeout(() => navigate('/search', { replace: true }), REDIRECT_MS);
      },
      () => {
        toast.error(REMOVAL_FAILED);
        navigate('/search', { replace: true });
      },
    );
  }, [ref, v, navigate]);

  if (!ref || !v) return <Redirect to="/search" replace />;

  return (
    <div className="page page-narrow">
      <section className="card status-card" data-testid="entry-removal" aria-live="polite">
        {done ? (
          <>
            <span className="empty-icon removal-done">
              <CheckIcon width={28} height={28} />
            </span>
            <h1 className="status-title">Entry Removed</h1>
            <p className="muted">You will be redirected in 3 seconds.</p>
          </>
        ) : (
          <>
            <span className="spinner" />
            <h1 className="status-title">Processing</h1>
          </>
        )}
      </section>
    </div>
  );
}
