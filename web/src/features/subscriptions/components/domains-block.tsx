import { useState } from 'react';
import { Link } from 'wouter';
import { useGuardedSubmit } from '@/hooks/use-guarded-submit';
import { toast } from '@/lib/toast-store';
import type { DomainPlan } from '@common/subscriptions';
import type { MonitoredDomain } from '../api/subscriptions-api';
import { formatExpiry, PlanActions, type Cancel } from './plan-actions';
import { isValidDomain } from '../lib/domain';

type UpdateDomain = (id: string, domain: string) => Promise<boolean>;

/**
 * The monitored-domain slots bought with Domain Monitoring (each can be set, reset or
 * submitted), then the plans they come from: renewal or expiry, and Cancel for a renewing one.
 */
export function DomainsBlock({
  domains,
  plans,
  cancel,
  updateDomain,
}: {
  domains: MonitoredDomain[];
  plans: DomainPlan[];
  cancel: Cancel;
  updateDomain: UpdateDomain;
}) {
  return (
    <section className="card subs-block subs-domains" aria-labelledby="subs-domains">
      <header className="subs-block-head">
        <h2 id="subs-domains" className="card-title">
          Domains
        </h2>
        <Link href="/subscriptions/monitoring" className="button button-secondary button-small">
          Add Domain
        </Link>
      </header>
      {domains.length === 0 ? (
        <p className="muted subs-note">No monitored domains yet. Domain Monitoring adds one slot per domain.</p>
      ) : (
        <ul className="domain-rows">
          {domains.map((row, index) => (
            <DomainRow key={row.id} row={row} number={index + 1} updateDomain={updateDomain} />
          ))}
        </ul>
      )}
      {plans.length > 0 && (
        <>
          <h3 className="subs-plans-title">Domain Monitoring plans</h3>
          <ul className="domain-plans">
            {plans.map((plan) => {
              const name = `Domain Monitoring (${plan.domains === 1 ? '1 domain' : `${plan.domains} domains`})`;
              return (
                <li key={plan.id} className="domain-plan" data-testid="domain-plan">
                  <span>
                    <strong>{name}</strong>
                    <span className="muted">
                      {' · '}
                      {plan.auto_renew && !plan.cancel_requested ? `Renews ${formatExpiry(plan.expiry)}` : `Expires ${formatExpiry(plan.expiry)}`}
                    </span>
                  </span>
                  <span className="subs-actions">
                    <PlanActions
                      planName={name}
                      recurring={plan.auto_renew}
                      requested={plan.cancel_requested}
                      cancelType="subscription-domain"
                      id={plan.id}
                      cancel={cancel}
                      purchaseHref={null}
                    />
                  </span>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}

function DomainRow({ row, number, updateDomain }: { row: MonitoredDomain; number: number; updateDomain: UpdateDomain }) {
  const saved = row.domain ?? '';
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(saved);
  const [busy, run] = useGuardedSubmit();
  const changed = draft.trim() !== saved;

  const submit = () =>
    run(async () => {
      const domain = draft.trim().toLowerCase();
      if (!isValidDomain(domain)) {
        toast.error('invalid domain value');
        return;
      }
      if (await updateDomain(row.id, domain)) setEditing(false);
    });

  return (
    <li className="domain-row" data-testid="domain-row">
      <span className="domain-number">#{number}</span>
      {editing ? (
        <form
          className="domain-edit"
          onSubmit={(event) => {
            event.preventDefault();
            if (changed) void submit();
          }}
        >
          <input
            className="input"
            aria-label={`Domain ${number}`}
            placeholder="example.com"
            value={draft}
            autoFocus
            onChange={(event) => setDraft(event.currentTarget.value)}
          />
          <button type="button" className="button button-ghost button-small" disabled={!changed} onClick={() => setDraft(saved)}>
            Reset
          </button>
          <button type="submit" className="button button-primary button-small" disabled={!changed || busy}>
            Submit
          </button>
          <button
            type="button"
            className="button button-ghost button-small"
            onClick={() => {
              setDraft(saved);
              setEditing(false);
            }}
          >
            Close
          </button>
        </form>
      ) : (
        <>
          <span className={`domain-value${saved ? '' : ' muted'}`}>{saved || 'Not set'}</span>
          <button
            type="button"
            className="button button-secondary button-small"
            aria-label={`Edit domain ${number}`}
            onClick={() => {
              setDraft(saved);
              setEditing(true);
            }}
          >
            Edit
          </button>
        </>
      )}
    </li>
  );
}
