import { useState, type FormEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { EmailField, PasswordField } from '@/components/fields';
import { PasswordStrength } from '@/components/password-strength';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { toast, toastErrors } from '@/lib/toast-store';
import { register } from '../api/auth-api';
import { registrationIntent } from '../redirect';
import { validateRegister } from '../validation';

export function RegisterForm({ loginHref }: { loginHref: string }) {
  const search = useSearch();
  const [, navigate] = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, run] = useGuardedSubmit();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      if (toastErrors(validateRegister(email.trim(), password))) return;
      try {
        const { success } = await register({ email: email.trim(), password, ...registrationIntent(search) });
        if (!success) throw new Error('not registered');
        navigate('/post-hoc');
      } catch {
        toast.error('Unable to register');
      }
    });
  };

  return (
    <form className="auth-form" onSubmit={submit} noValidate>
      <h1 className="auth-title">Create your account</h1>
      <p className="auth-subtitle">Search breached records and monitor what matters to you.</p>
      <EmailField value={email} onChange={setEmail} />
      {email && (
        <p className="field-note" role="note">
          We will email you a verification link: your email must be verified before you can log in.
        </p>
      )}
      <PasswordField
        label="Password"
        name="password"
        autoComplete="new-password"
        placeholder="Choose a password"
        value={password}
        onChange={setPassword}
      />
      <PasswordStrength password={password} />
      <p className="auth-terms">
        By registering you agree to the{' '}
        <Link href="/tos-privacy" className="link">
          Terms of Service and Privacy Policy
        </Link>
        .
      </p>
      <button type="submit" className="button button-primary button-block" disabled={busy}>
        {busy ? 'Registering…' : 'Register'}
      </button>
      <p className="auth-switch">
        Already have an account? <Link href={loginHref}>Login</Link>
      </p>
    </form>
  );
}
