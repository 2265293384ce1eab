import { Link } from 'wouter';
import { ApiKeyControl } from '@/features/api-docs';
import { useApiKeyCheck } from '@/features/api-docs';
import { useUser } from '@/features/user';
import { usePageTitle } from '@/hooks/use-page-title';
import { API_KEY_HEADER } from '@/lib/brand';
import { V1_BASE } from '../lib/v1-calls';
import { V2_MONITORING_BASE } from '../lib/v2-calls';
import '@/styles/api-docs.css';
import './monitoring-docs.css';

/** /monitoring/api: the key, the two monitoring APIs' base URLs, their documentation. */
export function MonitoringApiPage() {
  usePageTitle('Monitoring API');
  const { data: user } = useUser();
  const { data: check } = useApiKeyCheck();
  const origin = window.location.origin;

  return (
    <div className="page docs-page">
      <header className="page-header docs-header">
        <div>
          <h1>Monitoring API</h1>
          <p className="page-lead">Manage monitoring from your own tools: tasks, reports, channels and domains.</p>
        </div>
        <ApiKeyControl user={user} valid={check?.valid} />
      </header>

      <div className="monitoring-api-grid">
        <section className="card monitoring-api-card" aria-labelledby="monitoring-api-v2" data-testid="monitoring-api-v2">
          <h2 id="monitoring-api-v2">API V2</h2>
          <p className="muted">
            JSON calls with your key in the <code>{API_KEY_HEADER}</code> header; webhooks signed with Standard Webhooks.
          </p>
          <code className="monitoring-api-url" data-testid="base-url-v2">
            {`${origin}${V2_MONITORING_BASE}`}
          </code>
          <Link href="/monitoring/documentation-v2" className="button button-primary button-small">
            V2 Documentation
          </Link>
        </section>
        <section className="card monitoring-api-card" aria-labelledby="monitoring-api-v1" data-testid="monitoring-api-v1">
          <h2 id="monitoring-api-v1">Monitor API V1</h2>
          <p className="muted">
            The older API: POST calls with your key as a bearer token (<code>Authorization: Bearer …</code>).
          </p>
          <code className="monitoring-api-url" data-testid="base-url-v1">
            {`${origin}${V1_BASE}`}
          </code>
          <Link href="/monitoring/documentation" className="button button-secondary button-small">
            V1 Documentation
          </Link>
        </section>
      </div>
      <p className="muted">
        Search and WHOIS calls, and the monitoring calls beside them: <Link href="/documentation/api">API Documentation</Link>.
        Your tasks and channels: <Link href="/monitoring/manage">Monitoring</Link>.
      </p>
    </div>
  );
}
