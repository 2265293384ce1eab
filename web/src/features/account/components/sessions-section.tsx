import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { formatDateTime } from '@/lib/date-time';
import { relativeTime } from '@/lib/relative-time';
import { toast } from '@/lib/toast-store';
import {
  signOutEverywhere,
  signOutSession,
  useActiveSessions,
  useSignInHistory,
  type ActiveSession,
  type SignInEntry,
} from '../api/sessions-api';
import { ScrollRegion } from '@/components/scroll-region';
import './sessions-section.css';

const METHOD_LABELS: Record<SignInEntry['method'], string> = {
  password: 'Password',
  code: 'Authentication code',
  'recovery code': 'Recovery code',
  passkey: 'Passkey',
};

function SessionRow({ session, onEnded }: { session: ActiveSession; onEnded: () => Promise<unknown> }) {
  const [busy, run] = useGuardedSubmit();
  const where = session.ip ?? 'unknown address';
  const signOut = () =>
    run(async () => {
      try {
        await signOutSession(session.id);
        toast.success('Session signed out');
      } catch {
        toast.error('issue signing the session out');
      }
      await onEnded();
    });
  return (
    <li className="setting-row session-row" data-testid="session-row" data-current={session.current || undefined}>
      <div className="setting-text">
        <span className="setting-label">
          {session.device}
          {session.current && <span className="session-current"> (this session)</span>}
        </span>
        <span className="setting-value">
          <span className="session-address">{where}</span>
          {' · '}Started <time dateTime={session.created_at}>{formatDateTime(session.created_at)}</time>
          {' · '}Last used <time dateTime={session.last_used_at}>{relativeTime(session.last_used_at)}</time>
        </span>
      </div>
      {!session.current && (
        <button
          type="button"
          className="button button-secondary button-small"
          onClick={signOut}
          disabled={busy}
          aria-label={`Sign out ${session.device} at ${where}`}
        >
          {busy ? 'Signing out…' : 'Sign out'}
        </button>
      )}
    </li>
  );
}

function SignInHistory() {
  const { data, isLoading } = useSignInHistory();
  const entries = data?.entries ?? [];
  return (
    <div className="sessions-history">
      <h3 className="setting-label" id="sign-in-history-title">
        Sign-in history
      </h3>
      <p className="muted sessions-note">The last 20 sign-ins and failed attempts on this account.</p>
      {entries.length === 0 ? (
        <p className="muted">{isLoading ? 'Loading…' : 'No sign-ins recorded yet.'}</p>
      ) : (
        <ScrollRegion labelledBy="sign-in-history-title">
          <table className="sessions-table" data-testid="sign-in-history">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Address</th>
                <th scope="col">Device</th>
                <th scope="col">Method</th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry, i) => (
                <tr key={`${entry.at}-${i}`}>
                  <td>
                    <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
                  </td>
                  <td className="sessions-mono">{entry.ip}</td>
                  <td>{entry.device}</td>
                  <td>{METHOD_LABELS[entry.method] ?? entry.method}</td>
                  <td className={entry.success ? 'sessions-ok' : 'sessions-failed'}>{entry.success ? 'Signed in' : 'Failed'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </div>
  );
}

/** The Profile's "Sessions" card: live sessions, signing them out, and the sign-in history. */
export function SessionsSection() {
  const { data, isLoading, mutate } = useActiveSessions();
  const [busy, run] = useGuardedSubmit();
  const sessions = data?.sessions ?? [];
  const others = sessions.filter((s) => !s.current).length;

  const everywhere = () =>
    run(async () => {
      try {
        const { ended } = await signOutEverywhere();
        toast.success(ended === 1 ? 'Signed out 1 other session' : `Signed out ${ended} other sessions`);
      } catch {
        toast.error('issue signing out other sessions');
      }
      await mutate();
    });

  return (
    <section className="card" aria-labelledby="sessions-title">
      <h2 className="card-title" id="sessions-title">
        Sessions
      </h2>
      <p className="muted sessions-note">
        Where your account is signed in. Sign out any session you do not recognise, then change your password.
      </p>
      {sessions.length === 0 ? (
        <p className="muted">{isLoading ? 'Loading…' : 'No active sessions.'}</p>
      ) : (
        <ul className="sessions-list" aria-label="Active sessions">
          {sessions.map((session) => (
            <SessionRow key={session.id} session={session} onEnded={() => mutate()} />
          ))}
        </ul>
      )}
      <div className="setting-row">
        <span className="setting-text muted">
          {others === 0 ? 'No other sessions.' : others === 1 ? '1 other session.' : `${others} other sessions.`}
        </span>
        <button type="button" className="button button-danger" onClick={everywhere} disabled={busy}>
          Sign out everywhere
        </button>
      </div>
      <SignInHistory />
    </section>
  );
}
