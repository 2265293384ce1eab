import { useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { EmailField } from '@/components/fields';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { toastErrors } from '@/lib/toast-store';
import { requestPasswordReset } from '../api/auth-api';
import { validateForgot } from '../validation';

export function ForgotPasswordForm() {
  const [, navigate] = useLocation();
  const [email, setEmail] = useState('');
  const [busy, run] = useGuardedSubmit();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      if (toastErrors(validateForgot(email.trim()))) return;
      // Whether an account exists is never revealed: every outcome shows the same page.
      await requestPasswordReset(email.trim()).catch(() => undefined);
      navigate('/post-hoc-fp');
    });
  };

  return (
    <form className="auth-form" onSubmit={submit} noValidate>
      <h1 className="auth-title">Forgot Password</h1>
      <p className="auth-subtitle">
        Enter the email you registered with. If it matches an account, we will send you a link to set a new password.
      </p>
      <EmailField value={email} onChange={setEmail} />
      <button type="submit" className="button button-primary button-block" disabled={busy}>
        {busy ? 'Submitting…' : 'Submit'}
      </button>
      <p className="auth-switch">
        <Link href="/login">Back to Login</Link>
      </p>
    </form>
  );
}
