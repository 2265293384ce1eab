import { useEffect, useId, useState } from 'react';
import { passwordDigests, type PasswordDigests } from '@/lib/hashes';

const ROWS: { key: keyof PasswordDigests; label: string }[] = [
  { key: 'md5', label: 'MD5' },
  { key: 'sha1', label: 'SHA-1' },
  { key: 'sha256', label: 'SHA-256' },
  { key: 'sha512', label: 'SHA-512' },
  { key: 'base64', label: 'Base64' },
];

/**
 * Type a password, see the forms it takes in leaked data. Computed here, in the browser:
 * nothing typed into this box is sent anywhere (no form, no request).
 */
export function HashingHelper() {
  const id = useId();
  const [password, setPassword] = useState('');
  const [digests, setDigests] = useState<PasswordDigests | null>(null);

  useEffect(() => {
    if (!password) {
      setDigests(null);
      return;
    }
    let current = true;
    void passwordDigests(password).then((result) => {
      if (current) setDigests(result);
    });
    return () => {
      current = false;
    };
  }, [password]);

  return (
    <div className="card hash-helper" data-testid="hashing-helper">
      <label htmlFor={id}>Password</label>
      <input
        id={id}
        className="input"
        type="text"
        autoComplete="off"
        spellCheck={false}
        placeholder="Type a password to hash it"
        value={password}
        onChange={(event) => setPassword(event.currentTarget.value)}
      />
      <dl className="hash-list">
        {ROWS.map((row) => (
          <div key={row.key} style={{ display: 'contents' }}>
            <dt>{row.label}</dt>
            <dd data-testid={`hash-${row.key}`}>{digests?.[row.key] ?? '—'}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}
