import { useEffect, useRef, useState } from 'react';
import { useSearch } from 'wouter';
import { verifyEmail } from '../api/auth-api';
import { loginPathForRo } from '../redirect';
import { Notice } from './notice';

/** Sends the v key once on load; the answer is ignored. */
export function VerificationView() {
  const search = useSearch();
  const [verifying, setVerifying] = useState(true);
  const sent = useRef(false);

  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    const key = new URLSearchParams(search).get('v');
    const call = key ? verifyEmail(key).catch(() => undefined) : Promise.resolve();
    void call.then(() => setVerifying(false));
  }, [search]);

  if (verifying) {
    return (
      <div className="auth-notice" aria-busy="true">
        <span className="spinner" aria-hidden="true" />
        <h1>Verifying Email...</h1>
      </div>
    );
  }
  return (
    <Notice title="Email Verified" linkHref={loginPathForRo(search)} linkText="Login">
      Thank you for confirming your email. You can now log in.
    </Notice>
  );
}
