import { useEffect } from 'react';
import { SUPPORT_URL } from '@/lib/brand';
import { Splash } from '../guards';

/** /help (the legal page's header link): the support site, for signed-in and anonymous visitors alike. */
export function HelpRedirect() {
  useEffect(() => {
    window.location.replace(SUPPORT_URL);
  }, []);
  return <Splash />;
}
