import { useId, useState } from 'react';
import { mutate } from 'swr';
import { DOMAIN_ROLE_ADDRESSES } from '@common/monitoring-rules';
import { CopyIcon, ShieldIcon } from '@/components/icons';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { ApiError } from '@/lib/api';
import { toast } from '@/lib/toast-store';
import { checkDomain, sendDomainMail, type DomainVerification } from '../api/monitoring-api';
import { DOMAINS_KEY, useDomainVerifications } from '../api/use-monitoring';
import { refusalMessage } from '../lib/refusal';
import { DomainOverview } from './domain-overview';

const METHODS: Record<NonNullable<DomainVerification['method']>, string> = {
  dns: 'DNS TXT record',
  file: 'file',
  email: 'role-address mail',
  operator: 'support',
};

const day = (iso: string) => new Date(iso).toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' });

/** A 429's words for the live region; other refusals in the server's words. */
function failure(cause: unknown, fallback: string): string {
  if (cause instanceof ApiError && cause.status === 429) return 'Too many attempts for now. Wait a little and try again.';
  return refusalMessage(cause) ?? fallback;
}

/** One text to put somewhere, with a copy button. */
function CopyBox({ label, text, testId }: { label: string; text: string; testId: string }) {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      toast.success(`Copied ${label}`);
    } catch {
      toast.error('Could not copy, select the text and copy it by hand');
    }
  };
  return (
    <div className="secret-box">
      <code data-testid={testId}>{text}</code>
      <button type="button" className="icon-button" aria-label={`Copy ${label}`} onClick={() => void copy()}>
        <CopyIcon width={16} height={16} />
      </button>
    </div>
  );
}

/** One domain: its state and, until verified, the three ways to prove control. */
function DomainCard({ domain }: { domain: DomainVerification }) {
  const [message, setMessage] = useState('');
  const [role, setRole] = useState<string>(DOMAIN_ROLE_ADDRESSES[0]);
  const [checking, runCheck] = useGuardedSubmit();
  const [mailing, runMail] = useGuardedSubmit();
  const selectId = useId();
  const headingId = useId();

  const check = () =>
    runCheck(async () => {
      setMessage(`Checking ${domain.domain}…`);
      try {
        const result = await checkDomain(domain.domain);
        setMessage(result.message);
      } catch (cause) {
        setMessage(failure(cause, 'The check could not run. Try again later.'));
      }
      await mutate(DOMAINS_KEY);
    });

  const mail = () =>
    runMail(async () => {
      try {
        const { domain: updated } = await sendDomainMail(domain.domain, role);
        setMessage(`A confirmation link was sent to ${updated.mail_sent_to ?? `${role}@${domain.domain}`}. It is valid for 24 hours.`);
      } catch (cause) {
        setMessage(failure(cause, 'The mail could not be sent. Try again later.'));
      }
      await mutate(DOMAINS_KEY);
    });

  return (
    <li className="domain-verification" data-testid="domain-verification" aria-labelledby={headingId}>
      <div className="domain-verification-head">
        <h3 id={headingId}>{domain.domain}</h3>
        <span className={`domain-state${domain.verified ? ' verified' : ''}`} data-testid="domain-state">
          {domain.verified ? 'Verified' : 'Not verified'}
        </span>
      </div>
      {domain.verified ? (
        <p className="muted">
          Verified{domain.verified_by && domain.verified_by !== domain.domain ? ` through ${domain.verified_by}` : ''} by{' '}
          {METHODS[domain.method ?? 'operator']}
          {domain.expires_at ? `, until ${day(domain.expires_at)}` : ''}. Reports of this domain show their records.
        </p>
      ) : (
        <>
          <p className="muted">
            Reports of this domain show counts only until you prove you control it. Use one of these, then choose Check now (a mailed link
            confirms by itself).
          </p>
          <div className="domain-method">
            <h4>DNS TXT record</h4>
            <p>Add a TXT record at {domain.domain} with this text:</p>
            <CopyBox label={`TXT record for ${domain.domain}`} text={domain.txt_record} testId="domain-txt" />
          </div>
          <div className="domain-method">
            <h4>File on the web server</h4>
            <p>
              Serve <code className="inline-code">{domain.file_url}</code> holding this line:
            </p>
            <CopyBox label={`file content for ${domain.domain}`} text={domain.file_content} testId="domain-file" />
          </div>
          <div className="domain-method">
            <h4>Mail to an address of the domain</h4>
            <div className="domain-mail">
              <label htmlFor={selectId}>Send a confirmation link to</label>
              <select id={selectId} value={role} onChange={(event) => setRole(event.currentTarget.value)}>
                {DOMAIN_ROLE_ADDRESSES.map((local) => (
                  <option key={local} value={local}>
                    {local}@{domain.domain}
                  </option>
                ))}
              </select>
              <button type="button" className="button button-secondary button-small" disabled={mailing} onClick={() => void mail()}>
                Send Link
              </button>
            </div>
            {domain.mail_sent_to && <p className="muted">A link sent to {domain.mail_sent_to} is waiting to be confirmed.</p>}
          </div>
        </>
      )}
      {domain.verified && <DomainOverview domain={domain.domain} />}
      <div className="domain-check">
        <button type="button" className="button button-primary button-small" disabled={checking} onClick={() => void check()} aria-label={`Check Now: ${domain.domain}`}>
          Check Now
        </button>
        <p className="domain-result" role="status" aria-live="polite" data-testid="domain-result">
          {message}
        </p>
      </div>
    </li>
  );
}

/** The domain tab's verification block: every domain of the user's domain tasks (docs/monitoring.md "Domain verification"). */
export function DomainVerificationPanel() {
  const { data: domains } = useDomainVerifications();
  if (!domains || domains.length === 0) return null;
  return (
    <section className="card domain-verifications" aria-labelledby="domain-verifications-title">
      <h2 id="domain-verifications-title">
        <ShieldIcon width={18} height={18} aria-hidden="true" /> Domain verification
      </h2>
      <ul>
        {domains.map((domain) => (
          <DomainCard key={domain.domain} domain={domain} />
        ))}
      </ul>
    </section>
  );
}
