import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useLocation, useSearch } from 'wouter';
import { usePageTitle } from '@/hooks/use-page-title';
import { ApiError } from '@/lib/api';
import { closeAccount } from '../api/account-api';

/** Milliseconds the outcome stays on screen before the redirect. */
const REDIRECT_DELAY_MS = 3000;

type Outcome = 'processing' | 'code' | 'closed' | 'failed';

/**
 * /close-account?t=…: the link mailed by the closure request. With two-factor sign-in on, the
 * server asks for a current authentication code (or a recovery code) first; the link stays
 * valid until the closure goes through.
 */
export function CloseAccountPage() {
  usePageTitle('Close Account');
  const token = new URLSearchParams(useSearch()).get('t');
  const [, navigate] = useLocation();
  const [outcome, setOutcome] = useState<Outcome>('processing');
  const [code, setCode] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const sent = useRef(false);

  const close = (withCode?: string) =>
    closeAccount(token!, withCode).then(
      () => setOutcome('closed'),
      (error: unknown) => {
        if (error instanceof ApiError && error.status === 403 && /authentication code/i.test(error.message)) {
          setProblem(withCode ? error.message : null);
          setOutcome('code');
        } else setOutcome('failed');
      },
    );

  useEffect(() => {
    if (!token) {
      navigate('/search', { replace: true });
      return;
    }
    if (sent.current) return;
    sent.current = true;
    void close();
  }, [token, navigate]);

  useEffect(() => {
    if (outcome === 'processing' || outcome === 'code') return;
    const timer = setTimeout(() => navigate(outcome === 'closed' ? '/logout' : '/search'), REDIRECT_DELAY_MS);
    return () => clearTimeout(timer);
  }, [outcome, navigate]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!code.trim()) {
      setProblem('Please input the authentication code');
      return;
    }
    setOutcome('processing');
    void close(code.trim());
  };

  if (!token) return null;
  return (
    <div className="page page-narrow">
      <section className="card status-card" aria-live="polite">
        {outcome === 'processing' ? (
          <>
            <span className="spinner" aria-hidden="true" />
            <h1>Processing</h1>
          </>
        ) : outcome === 'code' ? (
          <form onSubmit={submit} noValidate data-testid="close-account-code">
            <h1>Confirm with your second factor</h1>
            <p className="muted">Two-factor sign-in is on: enter a current authentication code, or a recovery code, to close the account.</p>
            <label className="field">
              <span className="field-label">Authentication code</span>
              <input
                className="input"
                name="close-account-code"
                autoComplete="one-time-code"
                autoFocus
                value={code}
                onChange={(event) => setCode(event.currentTarget.value)}
              />
            </label>
            {problem && (
              <p className="field-problem" role="alert">
                {problem}
              </p>
            )}
            <button type="submit" className="button button-danger button-block">
              Close Account
            </button>
          </form>
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
