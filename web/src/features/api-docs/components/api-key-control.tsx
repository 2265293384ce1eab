import { useState } from 'react';
import { CopyIcon, KeyIcon } from '@/components/icons';
import { Modal } from '@/components/modal';
import { refreshUser, type User } from '@/features/user';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { ApiError } from '@/lib/api';
import { toast } from '@/lib/toast-store';
import { fullApiKey, regenerateApiKey } from '../api/api-key-api';
import './api-key-control.css';

export const KEY_INVALID = 'API V2 Key is NOT VALID, please generate a new key below';
export const KEY_REFRESH_FAILED = 'ERROR: could not refresh API Key';
/** The confirmation dialog's form; its button sits in the dialog's actions row. */
const KEY_FORM = 'api-key-form';

/** The key box of the page header: masked key, or the full key once right after (re)generation. */
export function ApiKeyControl({ user, valid }: { user: User | undefined; valid: boolean | undefined }) {
  const key = fullApiKey.use();
  const [confirming, setConfirming] = useState(false);
  const [busy, run] = useGuardedSubmit();
  // Shown when two-factor is on (the server asks for a current code).
  const [askCode, setAskCode] = useState(false);
  const [code, setCode] = useState('');
  const hasKey = Boolean(user?.api_private_key) || Boolean(key);

  const regenerate = () =>
    run(async () => {
      try {
        await regenerateApiKey(askCode ? code.trim() : undefined);
        setConfirming(false);
        setAskCode(false);
        setCode('');
        toast.success('New API key generated: copy it now, it is shown only in this session.');
        void refreshUser();
      } catch (error) {
        if (error instanceof ApiError && error.status === 403 && /authentication code/i.test(error.message)) {
          // Two-factor is on: the modal asks for a current code (or a recovery code).
          if (askCode) toast.error(error.message);
          setAskCode(true);
          return;
        }
        setConfirming(false);
        toast.error(KEY_REFRESH_FAILED);
      }
    });

  const copy = async () => {
    if (!key) return;
    try {
      await navigator.clipboard.writeText(key);
      toast.success('Copied API Key');
    } catch {
      toast.error('Could not copy to the clipboard');
    }
  };

  return (
    <section className="card api-key" aria-label="API key" data-testid="api-key-control">
      <div className="api-key-head">
        <span className="api-key-icon">
          <KeyIcon />
        </span>
        <div className="api-key-text">
          <span className="setting-label">API key</span>
          <code className="api-key-value" data-testid="api-key-value">
            {key ?? user?.api_private_key ?? 'No key yet'}
          </code>
        </div>
        <div className="api-key-actions">
          {key && (
            <button type="button" className="button button-secondary button-small" onClick={() => void copy()}>
              <CopyIcon width={15} height={15} />
              Copy
            </button>
          )}
          <button type="button" className="button button-primary button-small" disabled={!user} onClick={() => setConfirming(true)}>
            {hasKey ? 'Regenerate' : 'Generate'}
          </button>
        </div>
      </div>
      {key && <p className="api-key-note">This is the only time the whole key is shown. Store it somewhere safe.</p>}
      {valid === false && (
        <p className="api-key-invalid" role="alert" data-testid="api-key-invalid">
          {KEY_INVALID}
        </p>
      )}
      {confirming && (
        <Modal
          title="Are you sure?"
          onClose={() => setConfirming(false)}
          actions={
            <>
              <button type="button" className="button button-secondary" onClick={() => setConfirming(false)}>
                Cancel
              </button>
              <button type="submit" form={KEY_FORM} className="button button-primary" disabled={busy}>
                {hasKey ? 'Regenerate key' : 'Generate key'}
              </button>
            </>
          }
        >
          {/* A form, so Enter in the code field confirms as the button does: keyboard users submit there. */}
          <form
            id={KEY_FORM}
            className="api-key-form"
            noValidate
            onSubmit={(event) => {
              event.preventDefault();
              void regenerate();
            }}
          >
            <p className="muted">
              {hasKey
                ? 'A new key replaces the current one at once: programs using the old key stop working.'
                : 'The key is shown once, right after it is generated.'}
            </p>
            {askCode && (
              <label className="field">
                <span className="field-label">Authentication code</span>
                <input
                  className="input"
                  name="api-key-code"
                  autoComplete="one-time-code"
                  autoFocus
                  value={code}
                  onChange={(event) => setCode(event.currentTarget.value)}
                />
              </label>
            )}
          </form>
        </Modal>
      )}
    </section>
  );
}
