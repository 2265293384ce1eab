import { Link } from 'wouter';
import { tierLabel, type ChannelKind } from '@common/monitoring-rules';
import { ArrowRightIcon, BellIcon, RadarIcon } from '@/components/icons';
import { usePageTitle } from '@/hooks/use-page-title';
import { useChannelsInfo, useMonitoringInfo } from '../api/use-monitoring';
import { CHANNEL_TITLES } from '../lib/channel-kinds';
import { LoadFailed } from '@/components/load-failed';
import './monitoring.css';

/** /monitoring/manage: the tier, task usage and the notification channels at a glance. */
export function MonitoringManagePage() {
  usePageTitle('Monitoring');
  const { data: info, isLoading, error, mutate } = useMonitoringInfo();
  const { data: channels, error: channelsError, mutate: reloadChannels } = useChannelsInfo();

  return (
    <div className="page monitoring-page">
      <header className="page-header monitoring-header">
        <div>
          <h1>
            Monitoring
            {info && (
              <span className={`tier-tag tier-${info.tier}`} data-testid="tier-tag">
                {tierLabel(info.tier)}
              </span>
            )}
          </h1>
          <p className="page-lead">Get told when your usernames, emails, phones, names or domains show up in a new breach.</p>
        </div>
        {info && !info.is_enterprise && !info.elevated && (
          <Link href="/subscriptions" className="button button-primary">
            Upgrade to Enterprise
          </Link>
        )}
      </header>

      <Link href="/monitoring/reports" className="button button-secondary button-block mobile-only monitoring-reports-link">
        View Reports
        <ArrowRightIcon width={16} height={16} />
      </Link>

      {!info && error && !isLoading ? (
        <LoadFailed title="Could not load your monitoring" retry={mutate} />
      ) : !info ? (
        <section className="card status-card" aria-busy={isLoading}>
          {isLoading && <span className="spinner" />}
          <p className="muted">{isLoading ? 'Loading…' : 'Monitoring information is not available right now.'}</p>
        </section>
      ) : (
        <div className="monitoring-grid">
          <section className="card monitoring-block" aria-labelledby="monitor-tasks">
            <header className="monitoring-block-head">
              <span className="monitoring-block-icon">
                <RadarIcon width={20} height={20} />
              </span>
              <div>
                <h2 id="monitor-tasks" className="card-title">
                  Monitor Tasks
                </h2>
                <p className="muted">Values watched in every new data well.</p>
              </div>
            </header>
            <Usage label="Standard tasks" used={info.active_standard_tasks} max={info.max_standard_tasks} testId="usage-standard" />
            <Usage label="Domain tasks" used={info.active_domain_tasks} max={info.max_domain_tasks} testId="usage-domain" />
            <Link href="/monitoring/manage/tasks" className="button button-primary monitoring-block-action">
              Manage Tasks
            </Link>
          </section>

          <section className="card monitoring-block" aria-labelledby="monitor-channels">
            <header className="monitoring-block-head">
              <span className="monitoring-block-icon">
                <BellIcon width={20} height={20} />
              </span>
              <div>
                <h2 id="monitor-channels" className="card-title">
                  Notification Channels
                </h2>
                <p className="muted">Where new reports are sent, besides your inbox.</p>
              </div>
            </header>
            <Usage label="Email and SMS channels" used={info.active_notification_channels} max={info.max_notification_channels} testId="usage-channels" />
            <Usage label="Webhooks" used={info.active_webhooks} max={info.max_webhooks} testId="usage-webhooks" />
            {!channels && channelsError ? (
              <p className="load-failed-inline" role="alert">
                Could not load your channels.{' '}
                <button type="button" className="link link-button" onClick={() => void reloadChannels()}>
                  Try again
                </button>
              </p>
            ) : (
            <dl className="channel-summary">
              {(['email', 'phone', 'webhook'] as ChannelKind[]).map((kind) => {
                const channel = channels?.[kind];
                return (
                  <div key={kind} data-testid={`channel-summary-${kind}`}>
                    <dt>{CHANNEL_TITLES[kind]}</dt>
                    <dd className={channel?.value ? 'channel-summary-value' : 'muted'}>
                      {channel === null ? 'Not in your plan' : channel?.value || 'Not set'}
                    </dd>
                  </div>
                );
              })}
            </dl>
            )}
            <Link href="/monitoring/manage/channels" className="button button-primary monitoring-block-action">
              Manage Channels
            </Link>
          </section>
        </div>
      )}
    </div>
  );
}

function Usage({ label, used, max, testId }: { label: string; used: number; max: number; testId: string }) {
  const share = max > 0 ? Math.min(100, Math.round((used / max) * 100)) : 0;
  return (
    <div className="usage" data-testid={testId}>
      <div className="usage-line">
        <span>{label}</span>
        <span className="usage-count">
          {used.toLocaleString('en-US')} / {max.toLocaleString('en-US')}
        </span>
      </div>
      <div className="usage-bar" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={max} aria-valuenow={used}>
        <span style={{ width: `${share}%` }} className={used >= max ? 'full' : ''} />
      </div>
    </div>
  );
}
