import { Link } from 'wouter';
import { ApiKeyControl } from '@/features/api-docs';
import { CodeBlock } from '@/features/api-docs';
import { useApiKeyCheck } from '@/features/api-docs';
import { HelpLayout, HelpSection } from '@/features/docs';
import { useUser } from '@/features/user';
import { usePageTitle } from '@/hooks/use-page-title';
import { V1_BASE, V1_CALLS, V1_ERRORS, V1_LIMITS, V1_RULES, V1_WEBHOOK_PAYLOAD } from '../lib/v1-calls';
import { useSampleContext } from '../lib/use-sample-context';
import { CallDoc } from './call-doc';
import './monitoring-docs.css';
import { ReferenceTable } from '@/components/reference-table';

const TOC = [
  { id: 'introduction', title: 'Introduction' },
  { id: 'limits', title: 'Limits' },
  { id: 'errors', title: 'Errors' },
  { id: 'rules', title: 'Rules' },
  { id: 'calls', title: 'Calls', children: V1_CALLS.map((call) => ({ id: call.id, title: call.title })) },
  { id: 'webhooks', title: 'Webhooks' },
];

/** /monitoring/documentation (and /documentation/api-v1): the Monitor API V1. */
export function MonitoringV1DocsPage() {
  usePageTitle('Monitor API V1');
  const { data: user } = useUser();
  const { data: check } = useApiKeyCheck();
  const { v1 } = useSampleContext();
  const base = `${v1.baseUrl}${V1_BASE}`;

  return (
    <HelpLayout
      title="Monitor API V1"
      lead="The bearer-key monitoring API: tasks, notification methods, breaches and their entries."
      updated="Updated April 23, 2025"
      aside={<ApiKeyControl user={user} valid={check?.valid} />}
      toc={TOC}
    >
      <p className="docs-callout" data-testid="v2-link">
        New integrations should use the <Link href="/monitoring/documentation-v2">Monitoring API V2</Link>: the same monitoring with
        channels, domains and signed webhooks, under the key header of the search API.
      </p>
      <HelpSection id="introduction" title="Introduction">
        <p>
          Every call is a <code>POST</code> with a JSON body to <code>{base}</code>, with your API key as a bearer token:
        </p>
        <CodeBlock code={`Authorization: ${v1.key}`} />
        <p>
          Generate or regenerate the key with the key box at the top of this page; the whole key is shown only once and the
          samples fill it in.
        </p>
      </HelpSection>
      <HelpSection id="limits" title="Limits">
        <p>
          Up to {V1_LIMITS.perSecond} requests a second, with bursts of up to {V1_LIMITS.burst}, counted per key and per client
          address. Past that, every call is refused for {V1_LIMITS.blockMinutes} minutes with status 429 and the error{' '}
          <code>Too Many Requests.</code> (the <code>Retry-After</code> header gives the seconds left).
        </p>
      </HelpSection>
      <HelpSection id="errors" title="Errors">
        <ReferenceTable label="Errors" head={['Status', 'Message', 'When']} rows={V1_ERRORS} />
      </HelpSection>
      <HelpSection id="rules" title="Rules">
        <ul className="docs-steps">
          {V1_RULES.map((rule) => (
            <li key={rule}>{rule}</li>
          ))}
        </ul>
      </HelpSection>
      <HelpSection id="calls" title="Calls">
        {V1_CALLS.map((call) => (
          <CallDoc key={call.id} call={call} context={v1} level={3} />
        ))}
      </HelpSection>
      <HelpSection id="webhooks" title="Webhooks">
        <p>
          With a webhook notification method, each new breach is sent to your URL as a <code>POST</code>; read it with{' '}
          <a href="#v1-get-breach-entries">get-breach-entries</a>:
        </p>
        <CodeBlock code={JSON.stringify(V1_WEBHOOK_PAYLOAD, null, 2)} />
        <p>
          Deliveries are signed (Standard Webhooks headers <code>webhook-id</code>, <code>webhook-timestamp</code>,{' '}
          <code>webhook-signature</code>) and retried on failure. How to verify them, with receivers in four languages:{' '}
          <Link href="/monitoring/documentation-v2#monitoring-webhooks">Webhooks in the V2 documentation</Link>.
        </p>
      </HelpSection>
    </HelpLayout>
  );
}
