import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { ApiKeyControl } from '@/features/api-docs';
import { useUser } from '@/features/user';
import { usePageTitle } from '@/hooks/use-page-title';
import type { SubscriptionsInfo } from '../api/subscriptions-api';
import { useSubscriptions } from '../api/use-subscriptions';
import { LoadFailed } from '@/components/load-failed';
import { formatCredits } from '../lib/catalogue';
import { DomainsBlock } from './domains-block';
import { formatExpiry, PlanActions, type Cancel } from './plan-actions';
import './subscriptions.css';


/** /subscriptions: the API key, every plan and credit balance, monitored domains. */
export function SubscriptionsPage() {
  usePageTitle('Subscriptions');
  const { data: user } = useUser();
  const { info, isLoading, error, retry, cancel, updateDomain } = useSubscriptions();

  return (
    <div className="page subs-page">
      <header className="page-header subs-header">
        <div>
          <h1>Subscriptions</h1>
          <p className="page-lead">Your plans, credits and API key in one place.</p>
        </div>
        <Link href="/subscriptions/payment-history" className="button button-secondary">
          Payment History
        </Link>
      </header>

      <ApiKeyControl user={user} valid={undefined} />

      {!info && error && !isLoading ? (
        <LoadFailed title="Could not load your subscriptions" retry={retry} />
      ) : !info ? (
        <section className="card status-card" aria-busy={isLoading}>
          {isLoading ? <span className="spinner" /> : null}
          <p className="muted">{isLoading ? 'Loading subscriptions…' : 'Subscriptions info is not available right now.'}</p>
        </section>
      ) : (
        <div className="subs-grid">
          <SearchBlock info={info} cancel={cancel} />
          <CreditsBlock
            title="API credits"
            value={info.elevated ? '∞' : formatCredits(info.api_credits)}
            valueLabel={info.elevated ? 'Unlimited' : undefined}
            note="1 search through the API = 1 credit. A Search subscription is needed to use the API."
            purchaseHref="/subscriptions/search-credits"
          />
          <MonitoringBlock info={info} cancel={cancel} />
          <CreditsBlock
            title="WHOIS credits"
            value={formatCredits(info.whois_credits)}
            note="Spent by WHOIS lookups on the site and through the API."
            purchaseHref="/subscriptions/whois-credits"
          />
          <DomainsBlock domains={info.domains} plans={info.domain_plans} cancel={cancel} updateDomain={updateDomain} />
        </div>
      )}
    </div>
  );
}

function Block({ title, tag, children, actions }: { title: string; tag?: ReactNode; children: ReactNode; actions?: ReactNode }) {
  const id = `subs-${title.toLowerCase().replace(/\W+/g, '-')}`;
  return (
    <section className="card subs-block" aria-labelledby={id}>
      <header className="subs-block-head">
        <h2 id={id} className="card-title">
          {title}
        </h2>
        {tag}
      </header>
      {children}
      {actions && <div className="subs-actions">{actions}</div>}
    </section>
  );
}

function Facts({ rows }: { rows: [label: string, value: ReactNode][] }) {
  return (
    <dl className="subs-facts">
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function StatusTag({ active, label }: { active: boolean; label?: string }) {
  return <span className={`subs-tag${active ? ' subs-tag-active' : ''}`}>{label ?? (active ? 'Active' : 'Not active')}</span>;
}

function SearchBlock({ info, cancel }: { info: SubscriptionsInfo; cancel: Cancel }) {
  const recurring = info.search_auto_renew;
  const elevated = info.elevated;
  return (
    <Block
      title="Search"
      tag={<StatusTag active={elevated || info.search_active} label={elevated ? 'Elevated' : undefined} />}
      actions={
        <PlanActions
          planName="Search"
          recurring={recurring}
          requested={info.search_cancel_requested}
          cancelType="subscription-search"
          cancel={cancel}
          purchaseHref={elevated ? null : '/subscriptions/search'}
        />
      }
    >
      <Facts
        rows={[
          ['Status', elevated ? 'Elevated (always active)' : info.search_active ? 'Active' : 'Not active'],
          ['Auto-renew', recurring ? 'Yes' : 'No'],
          ['Expires', elevated ? 'Never' : recurring ? 'N/A' : formatExpiry(info.search_expiry)],
        ]}
      />
    </Block>
  );
}

function MonitoringBlock({ info, cancel }: { info: SubscriptionsInfo; cancel: Cancel }) {
  const recurring = info.monitoring_api_auto_renew;
  // Domain Monitoring plans are monitoring too: a paying domain customer is not "Not active".
  const domainPlans = info.domain_plans.length;
  const active = info.monitoring_api_active || domainPlans > 0;
  const plan = info.is_enterprise
    ? 'Enterprise'
    : domainPlans > 0
      ? `Domain Monitoring (${domainPlans === 1 ? '1 plan' : `${domainPlans} plans`}, see Domains)`
      : 'Start (free)';
  return (
    <Block
      title="Monitoring"
      tag={<StatusTag active={active} />}
      actions={
        <PlanActions
          planName="Monitoring"
          recurring={recurring}
          requested={info.monitoring_api_cancel_requested}
          cancelType="subscription-monitoring"
          cancel={cancel}
          purchaseHref="/subscriptions/monitoring"
        />
      }
    >
      <Facts
        rows={[
          ['Plan', plan],
          ['Auto-renew', recurring ? 'Yes' : 'No'],
          ['Expires', recurring ? 'N/A' : formatExpiry(info.monitoring_api_expiry)],
        ]}
      />
    </Block>
  );
}

function CreditsBlock({
  title,
  value,
  valueLabel,
  note,
  purchaseHref,
}: {
  title: string;
  value: string;
  valueLabel?: string;
  note: string;
  purchaseHref: string;
}) {
  return (
    <Block
      title={title}
      actions={
        <Link href={purchaseHref} className="button button-secondary button-small">
          Purchase
        </Link>
      }
    >
      <p className="subs-credits" aria-label={valueLabel ? `${title}: ${valueLabel}` : undefined}>
        {value}
      </p>
      <p className="muted subs-note">{note}</p>
    </Block>
  );
}
