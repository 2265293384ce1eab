import { Link } from 'wouter';
import { ApiKeyControl } from '@/features/api-docs';
import { CodeBlock } from '@/features/api-docs';
import { useApiKeyCheck } from '@/features/api-docs';
import { HelpLayout, HelpSection } from '@/features/docs';
import { useUser } from '@/features/user';
import { usePageTitle } from '@/hooks/use-page-title';
import { API_KEY_HEADER } from '@/lib/brand';
import { V2_MONITORING_BASE } from '../lib/v2-calls';
import { useSampleContext } from '../lib/use-sample-context';
import { MonitoringV2Sections, V2_TOC } from './monitoring-v2-sections';
import { ReferenceTable } from '@/components/reference-table';

const ERRORS = [
  ['400', 'The key header is missing or not a current key, or a field is wrong (the message says which), or a plan’s maximum is reached.'],
  ['404', 'The id is not one of yours.'],
  ['429', 'Too many requests: wait for the seconds in the Retry-After header.'],
];

/** /monitoring/documentation-v2: the public API v2's monitoring calls (the same sections as /documentation/api). */
export function MonitoringV2DocsPage() {
  usePageTitle('Monitoring API V2');
  const { data: user } = useUser();
  const { data: check } = useApiKeyCheck();
  const { v2 } = useSampleContext();

  return (
    <HelpLayout
      title="Monitoring API V2"
      lead="Watch values, read reports and set notification channels from your own tools."
      updated="Updated April 23, 2025"
      aside={<ApiKeyControl user={user} valid={check?.valid} />}
      toc={[{ id: 'introduction', title: 'Introduction' }, ...V2_TOC]}
    >
      <HelpSection id="introduction" title="Introduction">
        <p>
          Every call is under <code>{`${v2.baseUrl}${V2_MONITORING_BASE}`}</code>, answers JSON, and carries your API key in the{' '}
          <code>{API_KEY_HEADER}</code> header. Calls cost no credits. Up to 10 requests per second per IP address and key, as for
          search.
        </p>
        <CodeBlock code={`${API_KEY_HEADER}: ${v2.key}`} />
        <p>
          Errors come as <code>{'{"error": "message"}'}</code>:
        </p>
        <ReferenceTable label="Error responses" head={['Status', 'Meaning']} rows={ERRORS} />
        <p className="docs-callout">
          Using the older bearer-key API? See the <Link href="/monitoring/documentation">Monitor API V1 documentation</Link>. Search
          and WHOIS calls: <Link href="/documentation/api">API Documentation</Link>.
        </p>
      </HelpSection>
      <MonitoringV2Sections context={v2} level={2} />
    </HelpLayout>
  );
}
