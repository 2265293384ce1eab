import type { ReactNode } from 'react';

/**
 * A load that failed, said as such: a page whose data did not arrive must not look empty
 * ("0 / 0", "Not set", "No notifications"), or the user believes the wrong thing. The heading
 * names what could not be loaded; Try again reloads it.
 */
export function LoadFailed({ title, retry, icon, testId }: { title: string; retry: () => unknown; icon?: ReactNode; testId?: string }) {
  return (
    <section className="card empty-state load-failed" role="alert" data-testid={testId ?? 'load-failed'}>
      {icon && <span className="empty-icon">{icon}</span>}
      <h2>{title}</h2>
      <p className="muted">Your data is safe; it could not be shown just now.</p>
      <button type="button" className="button button-secondary" onClick={() => void retry()}>
        Try again
      </button>
    </section>
  );
}
