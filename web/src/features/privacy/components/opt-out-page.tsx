import { useEffect, useState, type FormEvent } from 'react';
import { Link, useSearch as useQueryString } from 'wouter';
import { EmailField } from '@/components/fields';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { usePageTitle } from '@/hooks/use-page-title';
import { ApiError } from '@/lib/api';
import { formatDateTime } from '@/lib/date-time';
import { toast } from '@/lib/toast-store';
import { isValidEmail } from '@common/credentials';
import { confirmOptOut, previewOptOut, requestOptOut, undoOptOut, type OptOutHoldings } from '../api/opt-out-api';
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
          We sent a link to <strong>{email.trim()}</strong>. It shows how many leaked records hold the address, by source, and opts it
          out (or, if it is opted out already, lets you undo that). It works once, for a day.
        </p>
      </div>
    );
  }
  return (
    <form onSubmit={submit} noValidate data-testid="opt-out-form">
      <h1 className="status-title">Remove your email from search results</h1>
      <p>
        No account needed. Enter your email address: we mail you a link that shows how many leaked records hold it and opts it out. From
        then on no search, count, password check, alert or export shows a record holding it, including breaches added later, until you
        undo it with a new link from this page.
      </p>
      <EmailField value={email} onChange={setEmail} />
      <button type="submit" className="button button-primary button-block" disabled={busy}>
        {busy ? 'Sending…' : 'Send me the link'}
      </button>
    </form>
  );
}

/** Step 2: the mailed link: what it covers, and the button that opts the address out (or lifts its opt-out). */
function ConfirmView({ token }: { token: string }) {
  const [holdings, setHoldings] = useState<OptOutHoldings | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [result, setResult] = useState<{ removed: number; remaining: number } | null>(null);
  const [restored, setRestored] = useState<number | null>(null);
  const [busy, run] = useGuardedSubmit();

  useEffect(() => {
    previewOptOut(token).then(setHoldings, (error: unknown) =>
      setFailure(error instanceof ApiError ? error.message : 'Could not load the link, try again later.'),
    );
  }, [token]);

  const optOut = () =>
    void run(async () => {
      try {
        setResult(await confirmOptOut(token));
      } catch (error) {
        toast.error(error instanceof ApiError ? error.message : 'Could not remove the entries, try again later.');
      }
    });

  const undo = () =>
    void run(async () => {
      try {
        setRestored((await undoOptOut(token)).restored);
      } catch (error) {
        toast.error(error instanceof ApiError ? error.message : 'Could not undo the opt-out, try again later.');
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
          {plural(result.removed, 'record')} no longer appear in any search, export or alert. Records holding the address in breaches added
          later are hidden too.
        </p>
        <p>
          To undo it, ask for a new link on the <Link href="/opt-out">opt-out page</Link>.
        </p>
      </div>
    );
  }
  if (restored !== null) {
    return (
      <div role="status" data-testid="opt-out-undone">
        <h1 className="status-title">Opt-out undone</h1>
        <p>
          {plural(restored, 'record')} holding the address show again in searches, and records of breaches added later will too. Entries
          removed one by one stay removed.
        </p>
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
  if (holdings.opted_out) {
    const since = holdings.opted_out_since ? formatDateTime(holdings.opted_out_since) : null;
    return (
      <div data-testid="opt-out-opted-out">
        <h1 className="status-title">Your address is opted out</h1>
        <p>
          {since ? `Since ${since}, no` : 'No'} search, count, password check, alert or export shows a record holding{' '}
          <strong>{holdings.email}</strong>, including breaches added since.
        </p>
        <p>Undo it if you want these records to show again, for instance to monitor the address yourself.</p>
        <button type="button" className="button button-secondary button-block" onClick={undo} disabled={busy}>
          {busy ? 'Undoing…' : 'Undo my opt-out'}
        </button>
      </div>
    );
  }
  return (
    <div data-testid="opt-out-preview">
      <h1 className="status-title">Your entries</h1>
      {holdings.total === 0 ? (
        <p>
          No record holds <strong>{holdings.email}</strong> today. Opting out keeps the address out of breaches added later.
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
          {holdings.truncated && <p>The table counts the first {plural(holdings.wells.reduce((n, w) => n + w.records, 0), 'record')}; the opt-out covers them all.</p>}
          <p>Opting out also hides records holding the address in breaches added later, until you undo it with a new link.</p>
        </>
      )}
      <button type="button" className="button button-danger button-block" onClick={optOut} disabled={busy}>
        {busy ? 'Removing…' : holdings.total === 0 ? 'Opt out of future breaches' : 'Remove all my entries'}
      </button>
    </div>
  );
}

/** /opt-out: anyone opts their email address out (or undoes it), without an account. */
export function OptOutPage() {
  usePageTitle('Opt-out');
  const token = new URLSearchParams(useQueryString()).get('t');
  return (
    <div className="page page-narrow">
      <section className="card opt-out-card">{token ? <ConfirmView token={token} /> : <RequestForm />}</section>
    </div>
  );
}
