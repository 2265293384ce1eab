import type { ReactNode } from 'react';
import { Redirect, useLocation, useSearch } from 'wouter';
import { DashboardFrame } from './dashboard-frame';
import { loginPathFor, pathAfterSignIn } from '@/features/auth/redirect';
import { useSession } from '@/lib/session';

/** Shown while the start-up refresh decides who the visitor is. */
export function Splash() {
  return (
    <div className="splash" aria-busy="true" aria-label="Loading">
      <span className="spinner" />
    </div>
  );
}

/** Sign-in views: a signed-in visitor is sent on to the redirect target. */
export function PublicOnly({ children }: { children: ReactNode }) {
  const { status } = useSession();
  const search = useSearch();
  if (status === 'pending') return <Splash />;
  if (status === 'signed-in') return <Redirect to={pathAfterSignIn(search)} replace />;
  return <>{children}</>;
}

/** Signed-in pages inside the dashboard frame; anonymous visitors go to /login?redirect=…. */
export function Protected({ title, children }: { title: string; children: ReactNode }) {
  const { status } = useSession();
  const [location] = useLocation();
  const search = useSearch();
  if (status === 'pending') return <Splash />;
  if (status === 'signed-out') return <Redirect to={loginPathFor(location, search)} replace />;
  return <DashboardFrame title={title}>{children}</DashboardFrame>;
}

/**
 * Pages for everyone that a mailed link opens (entry removal, opt-out): inside the dashboard
 * frame for a signed-in visitor, on their own otherwise.
 */
export function Open({ title, children }: { title: string; children: ReactNode }) {
  const { status } = useSession();
  if (status === 'pending') return <Splash />;
  if (status === 'signed-in') return <DashboardFrame title={title}>{children}</DashboardFrame>;
  return <main className="open-page">{children}</main>;
}
