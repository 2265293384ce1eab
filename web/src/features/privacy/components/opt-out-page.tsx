import { useEffect, useState, type FormEvent } from 'react';
import { Link, useSearch as useQueryString } from 'wouter';
import { EmailField } from '@/components/fields';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { usePageTitle } from '@/hooks/use-page-title';
import { ApiError } from '@/lib/api';
import { toast } from '@/lib/toast-store';
import { isValidEmail } from '@common/credentials';
import { confirmOptOut, previewOptOut, requestOptOut, type OptOutHoldings } from '../api/opt-out-api';
import './opt-out.css';

const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;

/** Step 1: anyone asks for a link to their address (the answer is the same for every address). */
function RequestForm() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const [busy, run] = useGuardedSubmit();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const value = email.trim();
      if (!isValidEmail(value)) {
        toast.error('Enter a valid email address.');
        return;
      }
      try {
        await requestOptOut(value);
        setSent(true);
      } catch (error) {
        toast.error(error instanceof ApiError ? error.message : 'Could not send the link, try again later.');
      }
    });
  };

  if (sent) {
    return (
      <div role="status" data-testid="opt-out-sent">
        <h1 className="status-title">Check your inbox</h1>
        <p>
          We sent a link to <strong>{email.trim()}</strong>. It shows how many leaked records hold the address, by source, and removes
          them all. It works once, for a day.
        </p>
      </div>
    );
  }
  return (
    <form onSubmit={submit} noValidate data-testid="opt-out-form">
      <h1 className="status-title">Remove your email from search results</h1>
      <p>
        No account needed. Enter your email address: we mail you a link that shows how many leaked records hold it and removes them all,
        for good.
      </p>
      <EmailField value={email} onChange={setEmail} />
      <button type="submit" className="button button-primary button-block" disabled={busy}>
        {busy ? 'Sending…' : 'Send me the link'}
      </button>
    </form>
  );
}

/** Step 2: the mailed link: what it covers, and the button that removes it all. */
function ConfirmView({ token }: { token: string }) {
  const [holdings, setHoldings] = useState<OptOutHoldings | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [result, setResult] = useState<{ removed: number; remaining: number } | null>(null);
  const [busy, run] = useGuardedSubmit();

  useEffect(() => {
    previewOptOut(token).then(setHoldings, (error: unknown) =>
      setFailure(error instanceof ApiError ? error.message : 'Could not load the link, try again later.'),
    );
  }, [token]);

  const remove = () =>
    void run(async () => {
      try {
        setResult(await confirmOptOut(token));
      } catch (error) {
        toast.error(error instanceof ApiError ? error.message : 'Could not remove the entries, try again later.');
      }
    });

  if (failure) {
    return (
      <div role="alert">
        <h1 className="status-title">Link not valid</h1>
        <p>{failure}</p>
        <Link href="/opt-out">Ask for a new link</Link>
      </div>
    );
  }
  if (result) {
    return (
      <div role="status" data-testid="opt-out-done">
        <h1 className="status-title">Entries removed</h1>
        <p>
          {plural(result.removed, 'record')} no longer appear in any search, export or alert, and stay removed if the same records are
          added again.
        </p>
        {result.remaining > 0 && (
          <p>
            {plural(result.remaining, 'record')} still hold the address. <Link href="/opt-out">Ask for another link</Link> to remove them.
          </p>
        )}
      </div>
    );
  }
  if (!holdings) {
    return (
      <div aria-busy="true">
        <span className="spinner" />
        <h1 className="status-title">Loading</h1>
      </div>
    );
  }
  return (
    <div data-testid="opt-out-preview">
      <h1 className="status-title">Your entries</h1>
      {holdings.total === 0 ? (
        <p>
          No record holds <strong>{holdings.email}</strong>.
        </p>
      ) : (
        <>
          <p>
            {plural(holdings.total, 'record')} hold <strong>{holdings.email}</strong>. Values are not shown.
          </p>
          <div className="opt-out-table" tabIndex={0} role="region" aria-label="Records per data well">
            <table className="opt-out-wells">
              <thead>
                <tr>
                  <th scope="col">Data well</th>
                  <th scope="col">Records</th>
                </tr>
              </thead>
              <tbody>
                {holdings.wells.map((well) => (
                  <tr key={well.name}>
                    <td>{well.name}</td>
                    <td>{well.records.toLocaleString('en-US')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {holdings.truncated && <p>This link removes the first {plural(holdings.wells.reduce((n, w) => n + w.records, 0), 'record')}; ask for another link for the rest.</p>}
          <button type="button" className="button button-danger button-block" onClick={remove} disabled={busy}>
            {busy ? 'Removing…' : 'Remove all my entries'}
          </button>
        </>
      )}
    </div>
  );
}

/** /opt-out: anyone removes every record holding their email address, without an account. */
export function OptOutPage() {
  usePageTitle('Opt-out');
  const token = new URLSearchParams(useQueryString()).get('t');
  return (
    <div className="page page-narrow">
      <section className="card opt-out-card">{token ? <ConfirmView token={token} /> : <RequestForm />}</section>
    </div>
  );
}
