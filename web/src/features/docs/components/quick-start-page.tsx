import { Link } from 'wouter';
import { ApiChecklist } from '@/features/api-docs';
import { ApiKeyControl } from '@/features/api-docs';
import { CodeTabs } from '@/features/api-docs';
import { fullApiKey } from '@/features/api-docs';
import { useApiKeyCheck } from '@/features/api-docs';
import { KEY_PLACEHOLDER, type SampleContext } from '@/lib/api-samples';
import { useUser } from '@/features/user';
import { usePageTitle } from '@/hooks/use-page-title';
import { API_KEY_HEADER, BRAND } from '@/lib/brand';
import { quickStartSample } from '../lib/quick-start-samples';
import { HelpLayout, HelpSection } from './help-layout';

const TOC = [
  { id: 'get-a-key', title: 'Get a Key' },
  { id: 'checklist', title: 'Checklist' },
  { id: 'first-search', title: 'Your First Search' },
  { id: 'next-steps', title: 'Next Steps' },
];

/** /documentation/quick-start: from no key to a first API search. */
export function QuickStartPage() {
  usePageTitle('Quick Start');
  const { data: user } = useUser();
  const { data: check } = useApiKeyCheck();
  const key = fullApiKey.use();
  const context: SampleContext = { baseUrl: window.location.origin, header: API_KEY_HEADER, key: key ?? KEY_PLACEHOLDER };

  return (
    <HelpLayout
      title="Quick Start"
      lead={`Your first ${BRAND} API search in three steps.`}
      updated="Updated April 2025"
      aside={<ApiKeyControl user={user} valid={check?.valid} />}
      toc={TOC}
    >
      <HelpSection id="get-a-key" title="1. Get a Key">
        <p>
          Generate your API key with the key box at the top of this page. The whole key is shown only in this session, right after
          it is generated: the samples below fill it in for you. Send it in the <code>{API_KEY_HEADER}</code> header.
        </p>
      </HelpSection>
      <HelpSection id="checklist" title="2. Checklist">
        <p>An API search needs all three:</p>
        <ApiChecklist keyValid={check?.valid} searchAccess={user?.search_access} credits={user?.search_credits} />
      </HelpSection>
      <HelpSection id="first-search" title="3. Your First Search">
        <p>
          Copy a sample, save it as the file it names and run it. It searches <code>email:&quot;name@example.com&quot;</code>{' '}
          (1 search credit) and prints the total and the first entries.
        </p>
        <CodeTabs name="quick-start" code={(language) => quickStartSample(language, context)} />
      </HelpSection>
      <HelpSection id="next-steps" title="Next Steps">
        <ul>
          <li>
            Every parameter, error and the password search: <Link href="/documentation/api">API Documentation</Link>.
          </li>
          <li>
            Fields, wildcards, regular expressions and operators for the <code>query</code>:{' '}
            <Link href="/documentation/search-guide">Search Guide</Link>.
          </li>
          <li>
            More credits: <Link href="/subscriptions/search-credits">Search Credits</Link>.
          </li>
        </ul>
      </HelpSection>
    </HelpLayout>
  );
}
