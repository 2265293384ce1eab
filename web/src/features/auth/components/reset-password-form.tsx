import { useState, type FormEvent } from 'react';
import { Link, useSearch } from 'wouter';
import { PasswordField } from '@/components/fields';
import { PasswordStrength } from '@/components/password-strength';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { toast, toastErrors } from '@/lib/toast-store';
import { resetPassword } from '../api/auth-api';
import { validateReset } from '../validation';
import { Notice } from './notice';

export function ResetPasswordForm() {
  const key = new URLSearchParams(useSearch()).get('k') ?? '';
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const [busy, run] = useGuardedSubmit();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      if (toastErrors(validateReset(password))) return;
      if (!key) {
        toast.error('This reset link is incomplete. Please request a new one.');
        return;
      }
      try {
        await resetPassword(key, password);
        setDone(true);
      } catch {
        toast.error('Unable to update password');
      }
    });
  };

  if (done) {
    return (
      <Notice title="Password Updated." linkHref="/login" linkText="Return to Login">
        Your new password is set. Log in with it from now on.
      </Notice>
    );
  }

  return (
    <form className="auth-form" onSubmit={submit} noValidate>
      <h1 className="auth-title">New Password</h1>
      <p className="auth-subtitle">Choose a new password for your account.</p>
      <PasswordField
        label="New password"
        name="password"
        autoComplete="new-password"
        placeholder="Choose a password"
        value={password}
        onChange={setPassword}
      />
      <PasswordStrength password={password} />
      <button type="submit" className="button button-primary button-block" disabled={busy}>
        {busy ? 'Saving…' : 'Set New Password'}
      </button>
      <p className="auth-switch">
        <Link href="/login">Back to Login</Link>
      </p>
    </form>
  );
}
