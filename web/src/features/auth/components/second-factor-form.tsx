import { useState, type FormEvent } from 'react';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { ApiError } from '@/lib/api';
import { signIn } from '@/lib/session';
import { toast } from '@/lib/toast-store';
import { completeSecondFactor, passkeyAssertion } from '../api/two-factor-api';

/**
 * The second step of a password sign-in when two-factor is on: an "Authentication code",
 * or a "Recovery code", or a passkey. No session exists until it passes.
 */
export function SecondFactorForm({ pendingToken, methods, onCancel }: { pendingToken: string; methods: string[]; onCancel: () => void }) {
  const [recovery, setRecovery] = useState(!methods.includes('code'));
  const [value, setValue] = useState('');
  const [busy, run] = useGuardedSubmit();

  const finish = async (proof: Parameters<typeof completeSecondFactor>[1]) => {
    try {
      const { auth_token } = await completeSecondFactor(pendingToken, proof);
      signIn(auth_token);
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        toast.error('Sign-in expired; please sign in again');
        onCancel();
      } else toast.error(error instanceof ApiError ? error.message : 'Verification failed');
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const entered = value.trim();
      if (!entered) {
        toast.error(recovery ? 'Please input a recovery code' : 'Please input the authentication code');
        return;
      }
      await finish(recovery ? { recovery_code: entered } : { code: entered.replace(/\s+/g, '') });
    });
  };

  const usePasskey = () =>
    void run(async () => {
      let passkey: unknown;
      try {
        passkey = await passkeyAssertion(pendingToken);
      } catch {
        toast.error('Passkey not used');
        return;
      }
      await finish({ passkey });
    });

  return (
    <form className="auth-form" onSubmit={submit} noValidate>
      <h1 className="auth-title">Two-factor authentication</h1>
      <p className="auth-subtitle">
        {recovery ? 'Enter one of your recovery codes. Each works once.' : 'Enter the 6-digit code from your authenticator app.'}
      </p>
      <label className="field">
        <span className="field-label">{recovery ? 'Recovery code' : 'Authentication code'}</span>
        <input
          key={recovery ? 'recovery' : 'code'}
          className="input"
          name={recovery ? 'recovery-code' : 'authentication-code'}
          autoComplete={recovery ? 'off' : 'one-time-code'}
          inputMode={recovery ? 'text' : 'numeric'}
          autoFocus
          value={value}
          onChange={(event) => setValue(event.currentTarget.value)}
        />
      </label>
      <button type="submit" className="button button-primary button-block" disabled={busy}>
        {busy ? 'Verifying…' : 'Verify'}
      </button>
      <div className="auth-row">
        {methods.includes('code') && (
          <button
            type="button"
            className="link"
            onClick={() => {
              setRecovery(!recovery);
              setValue('');
            }}
          >
            {recovery ? 'Use an authentication code' : 'Use a recovery code'}
          </button>
        )}
        {methods.includes('passkey') && (
          <button type="button" className="link" onClick={usePasskey} disabled={busy}>
            Use a passkey
          </button>
        )}
      </div>
      <p className="auth-switch">
        <button type="button" className="link" onClick={onCancel}>
          Back to Login
        </button>
      </p>
    </form>
  );
}
