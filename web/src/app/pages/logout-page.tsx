import { useEffect } from 'react';
import { useLocation } from 'wouter';
import { signOut } from '@/lib/session';
import { Splash } from '../guards';

/** /logout: ends the session, then shows the login screen. */
export function LogoutPage() {
  const [, navigate] = useLocation();
  useEffect(() => {
    void signOut().then(() => navigate('/login', { replace: true }));
  }, [navigate]);
  return <Splash />;
}
