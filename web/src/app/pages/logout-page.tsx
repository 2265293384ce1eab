import { useEffect, useRef } from 'react';
import { useLocation } from 'wouter';
import { signOut, useSession } from '@/lib/session';
import { Splash } from '../guards';

/**
 * /logout: ends the session, then shows the login screen. Typed into the address bar, the
 * page load's own start-up refresh is still under way: signing out waits for it, or the
 * refresh would answer after the sign-out and the login screen would bounce the visitor to
 * /search for a moment.
 */
export function LogoutPage() {
  const [, navigate] = useLocation();
  const { status } = useSession();
  const started = useRef(false);
  useEffect(() => {
    if (status === 'pending' || started.current) return;
    started.current = true;
    void signOut().then(() => navigate('/login', { replace: true }));
  }, [status, navigate]);
  return <Splash />;
}
