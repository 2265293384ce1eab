import { useState, type FormEvent } from 'react';
import { PasswordField } from '@/components/fields';
import { PasswordStrength } from '@/components/password-strength';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { meetsPasswordRules } from '@common/credentials';
import { toast, toastErrors } from '@/lib/toast-store';
import { ApiError } from '@/lib/api';
import { updatePassword } from '../api/account-api';

/** The new password follows the sign-up rules and must differ from the current one. */
function validatePasswordChange(current: string, next: string): string[] {
  const errors: string[] = [];
  if (!current) errors.push('Please input your current password');
  if (current && current === next) errors.push('Passwords are the same');
  else if (!meetsPasswordRules(next)) errors.push("New Password doesn't meet requirements (max length 55)");
  return errors;
}

/** The password row of the profile: a view mode and an edit mode. */
export function PasswordRow() {
  const [editing, setEditing] = useState(false);
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [busy, run] = useGuardedSubmit();
  // Shown when two-factor is on (the server asks for a current code).
  const [askCode, setAskCode] = useState(false);
  const [code, setCode] = useState('');

  const close = () => {
    setEditing(false);
    setCurrent('');
    setNext('');
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      if (toastErrors(validatePasswordChange(current, next))) return;
      try {
        await updatePassword(current, next, askCode ? code.trim() : undefined);
        toast.success('Password Updated');
        close();
      } catch (error) {
        if (error instanceof ApiError && error.message === 'Authentication code required') {
          setAskCode(true);
          toast.error('Please input the authentication code');
        } else toast.error(error instanceof ApiError && error.status === 403 && askCode ? error.message : 'issue updating password');
      }
    });
  };

  if (!editing) {
    return (
      <div className="setting-row">
        <div className="setting-text">
          <span className="setting-label">Password</span>
          <span className="setting-value" aria-label="hidden">
            ••••••••••
          </span>
        </div>
        <button type="button" className="button button-secondary" onClick={() => setEditing(true)}>
          Change Password
        </button>
      </div>
    );
  }

  return (
    <form className="setting-form" onSubmit={submit} noValidate>
      <span className="setting-label">Change password</span>
      <div className="form-grid">
        <PasswordField
          label="Current password"
          name="current-password"
          autoComplete="current-password"
          value={current}
          onChange={setCurrent}
        />
        <PasswordField label="New password" name="new-password" autoComplete="new-password" value={next} onChange={setNext} />
        {askCode && (
          <label className="field">
            <span className="field-label">Authentication code</span>
            <input className="input" autoComplete="one-time-code" value={code} onChange={(event) => setCode(event.currentTarget.value)} />
          </label>
        )}
      </div>
      <PasswordStrength password={next} />
      <div className="form-actions">
        <button type="button" className="button button-ghost" onClick={close} disabled={busy}>
          Cancel
        </button>
        <button type="submit" className="button button-primary" disabled={busy}>
          {busy ? 'Saving…' : 'Update Password'}
        </button>
      </div>
    </form>
  );
}
