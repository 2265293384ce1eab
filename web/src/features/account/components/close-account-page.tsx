import { useEffect, useRef, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { usePageTitle } from '@/hooks/use-page-title';
import { closeAccount } from '../api/account-api';

/** Milliseconds the outcome stays on screen before the redirect (spec 3 §9). */
const REDIRECT_DELAY_MS = 3000;

/** /close-account?t=…: the link mailed by the closure request. */
export function CloseAccountPage() {
  usePageTitle('Close Account');
  const token = new URLSearchParams(useSearch()).get('t');
  const [, navigate] = useLocation();
  const [outcome, setOutcome] = useState<'processing' | 'closed' | 'failed'>('processing');
  const sent = useRef(false);

  useEffect(() => {
    if (!token) {
      navigate('/search', { replace: true });
      return;
    }
    if (sent.current) return;
    sent.current = true;
    closeAccount(token).then(
      () => setOutcome('closed'),
      () => setOutcome('failed'),
    );
  }, [token, navigate]);

  useEffect(() => {
    if (outcome === 'processing') return;
    const timer = setTimeout(() => navigate(outcome === 'closed' ? '/logout' : '/search'), REDIRECT_DELAY_MS);
    return () => clearTimeout(timer);
  }, [outcome, navigate]);

  if (!token) return null;
  return (
    <div className="page page-narrow">
      <section className="card status-card" aria-live="polite">
        {outcome === 'processing' ? (
          <>
            <span className="spinner" aria-hidden="true" />
            <h1>Processing</h1>
          </>
        ) : (
          <>
            <h1>Request Processed</h1>
            {outcome === 'failed' && <p className="muted">This link is invalid or has expired.</p>}
            <p>You will be redirected in 3 seconds.</p>
          </>
        )}
      </section>
    </div>
  );
}
