import { useEffect, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { ApiError } from '@/lib/api';
import { formatDateTime } from '@/lib/date-time';
import { toast } from '@/lib/toast-store';
import { stepUpPasskey, twoFactorApi, type SecondFactorProof, type TwoFactorStatus } from '@/features/auth';

/** 10 recovery codes, shown once, with copy and download. */
function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const text = codes.join('\n') + '\n';
  const download = () => {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'recovery-codes.txt';
    a.click();
    URL.revokeObjectURL(url);
  };
  return (
    <div className="setting-form" role="region" aria-label="Recovery codes">
      <span className="setting-label">Recovery codes</span>
      <p className="muted">Keep these somewhere safe. Each signs you in once if you cannot use your authenticator app or passkey. They are shown only now.</p>
      <ul className="recovery-codes" data-testid="recovery-codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <div className="form-actions">
        <button type="button" className="button button-secondary" onClick={() => void navigator.clipboard?.writeText(text).then(() => toast.success('Copied'))}>
          Copy
        </button>
        <button type="button" className="button button-secondary" onClick={download}>
          Download
        </button>
        <button type="button" className="button button-primary" onClick={onDone}>
          Done
        </button>
      </div>
    </div>
  );
}

/** Asks for a current code (or recovery code, passkey) before a sensitive change. */
function StepUp({ label, hasPasskeys, onProof, onCancel }: { label: string; hasPasskeys: boolean; onProof: (proof: SecondFactorProof) => Promise<void>; onCancel: () => void }) {
  const [recovery, setRecovery] = useState(false);
  const [value, setValue] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const entered = value.trim();
    if (!entered) return toast.error(recovery ? 'Please input a recovery code' : 'Please input the authentication code');
    void onProof(recovery ? { recovery_code: entered } : { code: entered });
  };
  return (
    <form className="setting-form" onSubmit={submit} noValidate>
      <span className="setting-label">{label}</span>
      <label className="field">
        <span className="field-label">{recovery ? 'Recovery code' : 'Authentication code'}</span>
        <input className="input" autoComplete={recovery ? 'off' : 'one-time-code'} inputMode={recovery ? 'text' : 'numeric'} value={value} onChange={(e) => setValue(e.currentTarget.value)} />
      </label>
      <div className="form-actions">
        <button type="button" className="button button-ghost" onClick={() => setRecovery(!recovery)}>
          {recovery ? 'Use an authentication code' : 'Use a recovery code'}
        </button>
        {hasPasskeys && (
          <button type="button" className="button button-ghost" onClick={() => void stepUpPasskey().then(onProof, () => toast.error('Passkey not used'))}>
            Use a passkey
          </button>
        )}
        <button type="button" className="button button-ghost" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button button-primary">
          Confirm
        </button>
      </div>
    </form>
  );
}

/**
 * What a password sign-in asks for besides the password, in plain words: a passkey turns
 * two-factor sign-in on by itself, and its owner must know before signing in needs it.
 */
function secondStepText(status: TwoFactorStatus): string {
  if (!status.enabled) return 'Signing in needs only your password. An authenticator app or a passkey turns on a second step.';
  const passkey = status.passkeys.length > 0;
  if (!status.totp) {
    return 'On because you added a passkey: signing in with your password also asks for your passkey, or, on a device without it, a recovery code.';
  }
  return passkey
    ? 'Signing in with your password also asks for a code from your authenticator app, a passkey, or a recovery code.'
    : 'Signing in with your password also asks for a code from your authenticator app, or a recovery code.';
}

type Pending = { kind: 'disable' } | { kind: 'regenerate' } | { kind: 'remove'; id: string } | { kind: 'add' } | { kind: 'enable' };

/** Profile: "Two-factor authentication": TOTP, recovery codes and passkeys. */
export function TwoFactorSection() {
  const [status, setStatus] = useState<TwoFactorStatus | null>(null);
  const [setup, setSetup] = useState<{ secret: string; qr_code: string } | null>(null);
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);
  const [stepUp, setStepUp] = useState<Pending | null>(null);
  const [passkeyName, setPasskeyName] = useState('');

  const reload = () => twoFactorApi.status().then(setStatus, () => undefined);
  useEffect(() => void reload(), []);
  const fail = (error: unknown) => toast.error(error instanceof ApiError ? error.message : 'Something went wrong');

  const begin = async (proof: SecondFactorProof = {}) => {
    try {
      setSetup(await twoFactorApi.begin(proof));
      setStepUp(null);
    } catch (error) {
      if (error instanceof ApiError && error.message === 'Authentication code required') setStepUp({ kind: 'enable' });
      else fail(error);
    }
  };

  const confirm = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const { recovery_codes } = await twoFactorApi.confirm(code.trim());
      setSetup(null);
      setCode('');
      setCodes(recovery_codes);
      toast.success('Two-factor authentication is on');
      await reload();
    } catch (error) {
      fail(error);
    }
  };

  const addPasskey = async (proof: SecondFactorProof = {}) => {
    const name = passkeyName.trim();
    if (!name) return toast.error('Please name the passkey');
    try {
      const { recovery_codes } = await twoFactorApi.addPasskey(name, proof);
      setPasskeyName('');
      setStepUp(null);
      if (recovery_codes) setCodes(recovery_codes);
      toast.success('Passkey added');
      await reload();
    } catch (error) {
      if (error instanceof ApiError && error.message === 'Authentication code required') setStepUp({ kind: 'add' });
      else fail(error);
    }
  };

  const withProof = async (proof: SecondFactorProof) => {
    if (!stepUp) return;
    try {
      if (stepUp.kind === 'disable') {
        await twoFactorApi.disable(proof);
        toast.success('Two-factor authentication is off');
      } else if (stepUp.kind === 'regenerate') setCodes((await twoFactorApi.regenerate(proof)).recovery_codes);
      else if (stepUp.kind === 'remove') {
        await twoFactorApi.removePasskey(stepUp.id, proof);
        toast.success('Passkey removed');
      } else if (stepUp.kind === 'add') return void (await addPasskey(proof));
      else if (stepUp.kind === 'enable') return void (await begin(proof));
      setStepUp(null);
      await reload();
    } catch (error) {
      fail(error);
    }
  };

  const hasPasskeys = (status?.passkeys.length ?? 0) > 0;
  return (
    <section className="card" aria-labelledby="two-factor-title">
      <h2 className="card-title" id="two-factor-title">
        Two-factor authentication
      </h2>
      <div className="setting-row">
        <div className="setting-text">
          <span className="setting-label">Two-factor sign-in</span>
          <span className="setting-value" data-testid="two-factor-sign-in">
            {status ? (status.enabled ? 'On' : 'Off') : 'Loading…'}
          </span>
          {status && (
            <p className="muted" data-testid="two-factor-explained">
              {secondStepText(status)}
              {status.enabled && (
                <>
                  {' '}
                  <Link href="/documentation/faq#twoFactor">How to recover</Link> if you lose them.
                </>
              )}
            </p>
          )}
        </div>
      </div>
      <div className="setting-row">
        <div className="setting-text">
          <span className="setting-label">Authenticator app</span>
          <span className="setting-value" data-testid="two-factor-state">
            {status ? (status.totp ? 'On' : 'Off') : 'Loading…'}
          </span>
          {status?.enabled && <span className="setting-hint">{status.recovery_codes_left} recovery codes left</span>}
        </div>
        {status && !status.totp && !setup && (
          <button type="button" className="button button-primary" onClick={() => void begin()}>
            Enable two-factor authentication
          </button>
        )}
        {status?.totp && (
          <button type="button" className="button button-secondary" onClick={() => setStepUp({ kind: 'disable' })}>
            Turn off
          </button>
        )}
      </div>

      {setup && (
        <form className="setting-form" onSubmit={(e) => void confirm(e)} noValidate>
          <span className="setting-label">Scan this QR code with your authenticator app</span>
          <img src={setup.qr_code} width={220} height={220} alt="QR code of the two-factor secret; the same secret is written below" />
          <p>
            Or enter this secret by hand: <code data-testid="totp-secret">{setup.secret}</code>
          </p>
          <label className="field">
            <span className="field-label">Authentication code</span>
            <input className="input" autoComplete="one-time-code" inputMode="numeric" value={code} onChange={(e) => setCode(e.currentTarget.value)} />
          </label>
          <div className="form-actions">
            <button type="button" className="button button-ghost" onClick={() => setSetup(null)}>
              Cancel
            </button>
            <button type="submit" className="button button-primary">
              Turn on
            </button>
          </div>
        </form>
      )}

      {codes && <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />}

      {status?.enabled && !codes && (
        <div className="setting-row">
          <div className="setting-text">
            <span className="setting-label">Recovery codes</span>
            <span className="setting-hint">New codes replace the old ones.</span>
          </div>
          <button type="button" className="button button-secondary" onClick={() => setStepUp({ kind: 'regenerate' })}>
            Make new recovery codes
          </button>
        </div>
      )}

      <div className="setting-form">
        <span className="setting-label">Passkeys</span>
        {hasPasskeys ? (
          <ul className="passkey-list">
            {status!.passkeys.map((p) => (
              <li key={p.id} className="setting-row">
                <div className="setting-text">
                  <span className="setting-value">{p.name}</span>
                  <span className="setting-hint">
                    Added {formatDateTime(p.created_at)} · Last used {p.last_used_at ? formatDateTime(p.last_used_at) : 'never'}
                  </span>
                </div>
                <button type="button" className="button button-ghost" aria-label={`Remove passkey ${p.name}`} onClick={() => setStepUp({ kind: 'remove', id: p.id })}>
                  Remove
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">No passkeys yet. A passkey signs you in without a password and counts as your second factor.</p>
        )}
        {status && !status.enabled && (
          <p className="muted" id="passkey-turns-on-two-factor" data-testid="passkey-two-factor-note">
            Adding a passkey also turns on two-factor sign-in. After that, signing in with your email and password asks for this
            passkey too; on a device without it, you need one of the recovery codes we show you once, right after the passkey is
            made. Keep them somewhere safe.
          </p>
        )}
        <div className="form-grid">
          <label className="field">
            <span className="field-label">Passkey name</span>
            <input className="input" maxLength={64} value={passkeyName} onChange={(e) => setPasskeyName(e.currentTarget.value)} />
          </label>
        </div>
        <div className="form-actions">
          <button
            type="button"
            className="button button-secondary"
            aria-describedby={status && !status.enabled ? 'passkey-turns-on-two-factor' : undefined}
            onClick={() => void addPasskey()}
          >
            Add a passkey
          </button>
        </div>
      </div>

      {stepUp && (
        <StepUp
          label="Confirm it is you"
          hasPasskeys={hasPasskeys}
          onProof={withProof}
          onCancel={() => setStepUp(null)}
        />
      )}
    </section>
  );
}
