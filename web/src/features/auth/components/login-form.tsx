import { useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { EmailField, PasswordField } from '@/components/fields';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { ApiError } from '@/lib/api';
import { signIn } from '@/lib/session';
import { toast, toastErrors } from '@/lib/toast-store';
import { logIn } from '../api/auth-api';
import { signInWithPasskey } from '../api/two-factor-api';
import { SecondFactorForm } from './second-factor-form';
import { validateLogin } from '../validation';

const UNVERIFIED_MESSAGE = 'You need to verify your email in order to login. Please check your email.';

export function LoginForm({ registerHref }: { registerHref: string }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [remember, setRemember] = useState(true);
  const [busy, run] = useGuardedSubmit();
  const [pending, setPending] = useState<{ token: string; methods: string[] } | null>(null);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      if (toastErrors(validateLogin(email.trim(), password))) return;
      try {
        const outcome = await logIn({ email: email.trim(), password, remember });
        if ('second_factor_required' in outcome) {
          // Two-factor is on: the same screen asks for the code; no session yet.
          setPending({ token: outcome.pending_token, methods: outcome.methods });
          return;
        }
        const { auth_token } = outcome;
        if (!auth_token) throw new Error('no token');
        // The public-route guard now sends the user to the redirect target.
        signIn(auth_token);
      } catch (error) {
        toast.error(error instanceof ApiError && error.status === 401 ? UNVERIFIED_MESSAGE : 'Login Failed');
      }
    });
  };

  const passkey = () =>
    void run(async () => {
      try {
        const { auth_token } = await signInWithPasskey(remember);
        signIn(auth_token);
      } catch (error) {
        toast.error(error instanceof ApiError ? error.message : 'Passkey sign-in did not complete');
      }
    });

  if (pending) {
    return (
      <SecondFactorForm
        pendingToken={pending.token}
        methods={pending.methods}
        onCancel={() => {
          setPending(null);
          setPassword('');
        }}
      />
    );
  }

  return (
    <form className="auth-form" onSubmit={submit} noValidate>
      <h1 className="auth-title">Welcome back</h1>
      <p className="auth-subtitle">Log in to search, monitor and manage your account.</p>
      <EmailField value={email} onChange={setEmail} />
      <PasswordField
        label="Password"
        name="password"
        autoComplete="current-password"
        placeholder="Your password"
        value={password}
        onChange={setPassword}
      />
      <div className="auth-row">
        <label className="checkbox">
          <input type="checkbox" checked={remember} onChange={(event) => setRemember(event.currentTarget.checked)} />
          Remember Me
        </label>
        <Link href="/forgot-password" className="link">
          Forgot Password
        </Link>
      </div>
      <button type="submit" className="button button-primary button-block" disabled={busy}>
        {busy ? 'Logging In…' : 'Log In'}
      </button>
      <button type="button" className="button button-secondary button-block" onClick={passkey} disabled={busy}>
        Sign in with a passkey
      </button>
      <p className="auth-switch">
        Don't have an account? <Link href={registerHref}>Register</Link>
      </p>
    </form>
  );
}
