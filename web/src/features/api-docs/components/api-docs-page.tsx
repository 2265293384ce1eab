import { useEffect, type ReactNode } from 'react';
import { Link } from 'wouter';
import { MonitoringV2Sections, V2_TOC } from '@/features/monitoring-docs';
import { useUser } from '@/features/user';
import { usePageTitle } from '@/hooks/use-page-title';
import { API_KEY_HEADER, BRAND } from '@/lib/brand';
import { fullApiKey } from '../api/api-key-api';
import { useApiKeyCheck } from '../api/use-api-key-check';
import {
  KEY_PLACEHOLDER,
  PASSWORD_RESPONSE_EXAMPLE,
  passwordSample,
  SEARCH_RESPONSE_EXAMPLE,
  searchSample,
  type SampleContext,
} from '@/lib/api-samples';
import { ApiChecklist } from './api-checklist';
import { ApiKeyControl } from './api-key-control';
import { CodeBlock, CodeTabs } from './code-tabs';
import { WHOIS_TOC, WhoisApiSections } from './whois-api-section';
import '@/styles/api-docs.css';
import { ReferenceTable } from '@/components/reference-table';
import { endpointOf, referenceFields } from '@/lib/api-reference';

const TOC: { id: string; title: string; children: { id: string; title: string }[] }[] = [
  {
    id: 'introduction',
    title: 'Introduction',
    children: [
      { id: 'authentication', title: 'Authentication' },
      { id: 'rate-limiting', title: 'Rate Limiting' },
      { id: 'errors', title: 'Common Error Responses' },
    ],
  },
  {
    id: 'search-api',
    title: 'Search API',
    children: [
      { id: 'checklist', title: 'Checklist' },
      { id: 'deduplication', title: 'Deduplication' },
      { id: 'general-search', title: 'General Search' },
      { id: 'password-search', title: 'Password Search' },
    ],
  },
  { id: 'monitoring-api', title: 'Monitoring API', children: V2_TOC },
  { id: 'whois-api', title: 'WHOIS API', children: WHOIS_TOC },
];

const ERRORS = [
  ['400', 'Bad Request', 'An issue with authentication (the key header is missing or not a current key) or with the body, such as regex and wildcard both true.'],
  ['401', 'Unauthorized', 'A search subscription and API credits are needed.'],
  ['403', 'Forbidden', 'Insufficient Credits: buy search credits to continue.'],
  ['429', 'Too Many Requests', 'Too many requests: wait for the seconds given in the Retry-After header.'],
];

function Section({ id, title, children, level = 2 }: { id: string; title: string; children: ReactNode; level?: 2 | 3 }) {
  const Heading = level === 2 ? 'h2' : 'h3';
  return (
    <section id={id} className={`docs-section docs-level-${level}`} aria-labelledby={`${id}-title`}>
      <Heading id={`${id}-title`}>{title}</Heading>
      {children}
    </section>
  );
}

/** /documentation/api: the public API v2 with the user's own key in the samples. */
export function ApiDocsPage() {
  usePageTitle('API Documentation');
  const { data: user } = useUser();
  const { data: check } = useApiKeyCheck();
  const key = fullApiKey.use();
  const context: SampleContext = { baseUrl: window.location.origin, header: API_KEY_HEADER, key: key ?? KEY_PLACEHOLDER };
  // The sections render after the browser looked for a linked #anchor (e.g. #monitoring-api): go to it now.
  useEffect(() => {
    const id = decodeURIComponent(window.location.hash.slice(1));
    if (id) document.getElementById(id)?.scrollIntoView();
  }, []);

  return (
    <div className="page docs-page">
      <header className="page-header docs-header">
        <div>
          <h1>API Documentation</h1>
          <p className="page-lead">Search {BRAND} from your own tools with the public API v2.</p>
          <p className="docs-updated">Updated April 23, 2025</p>
        </div>
        <ApiKeyControl user={user} valid={check?.valid} />
      </header>

      <div className="docs-layout">
        <nav className="docs-toc" aria-label="Table of contents">
          <p className="docs-toc-title">Contents</p>
          <ol>
            {TOC.map((part) => (
              <li key={part.id}>
                <a href={`#${part.id}`}>{part.title}</a>
                {part.children.length > 0 && (
                  <ol>
                    {part.children.map((child) => (
                      <li key={child.id}>
                        <a href={`#${child.id}`}>{child.title}</a>
                      </li>
                    ))}
                  </ol>
                )}
              </li>
            ))}
          </ol>
        </nav>

        <article className="docs-content">
          <Section id="introduction" title="Introduction">
            <p>
              The API answers JSON over HTTPS at <code>{context.baseUrl}</code>. Every call is a <code>POST</code> with a JSON
              body and your API key in a header.
            </p>
            <Section id="authentication" title="Authentication" level={3}>
              <p>
                Send your key in the <code>{API_KEY_HEADER}</code> header (header names are case-insensitive). Generate or
                regenerate it from the key box at the top of this page; the whole key is shown only once. Keep it secret: anyone
                with the key spends your credits. With two-factor authentication on, generating a key asks for a code first.
              </p>
              <CodeBlock code={`${API_KEY_HEADER}: ${context.key}`} />
            </Section>
            <Section id="rate-limiting" title="Rate Limiting" level={3}>
              <p>
                Up to 10 requests per second per IP address and key. Beyond that the API answers <code>429</code> with a{' '}
                <code>Retry-After</code> header giving the seconds to wait; repeated abuse can suspend the key.
              </p>
            </Section>
            <Section id="request-bodies" title="Request Bodies" level={3}>
              <p>
                A body field the API does not know is ignored, never refused, so a client that sends its own bookkeeping keeps
                working; an ignored field never acts. A field the API cannot accept is answered <code>400</code> with a message
                naming the field and the rule, such as <code>{'{"error": "Invalid request: size must be at most 10000"}'}</code>.
              </p>
            </Section>
            <Section id="errors" title="Common Error Responses" level={3}>
              <p>
                Errors come as <code>{'{"error": "message"}'}</code> with one of these statuses:
              </p>
              <ReferenceTable label="Error responses" head={['Status', 'Meaning', 'What to do']} rows={ERRORS} />
            </Section>
          </Section>

          <Section id="search-api" title="Search API">
            <p>Each search costs 1 search credit and needs an active search subscription; password searches are free.</p>
            <Section id="checklist" title="Checklist" level={3}>
              <ApiChecklist keyValid={check?.valid} searchAccess={user?.search_access} credits={user?.search_credits} />
            </Section>
            <Section id="deduplication" title="Deduplication" level={3}>
              <p>
                The same person often appears in several breaches with the same values. With <code>de_dupe</code> set to{' '}
                <code>true</code>, entries repeating the same values are merged into one, so a page holds more distinct
                results. <code>total</code> then counts the merged entries.
              </p>
            </Section>
            <Section id="general-search" title="General Search" level={3}>
              <p>
                <code>{endpointOf('v2Search')}</code>
              </p>
              <ReferenceTable label="Search fields" head={['Field', 'Type', 'Default', 'Description']} rows={referenceFields('v2Search')} />
              <CodeTabs name="search" code={(language) => searchSample(language, context)} />
              <p>
                The answer: <code>balance</code> (credits left), <code>entries</code>, <code>took</code> and <code>total</code>.
                Empty fields are left out of an entry.
              </p>
              <CodeBlock code={SEARCH_RESPONSE_EXAMPLE} />
            </Section>
            <Section id="password-search" title="Password Search" level={3}>
              <p>
                <code>{endpointOf('v2SearchPassword')}</code> with the SHA-256 of the password, in hex: the password itself never leaves
                your machine. The answer says how many leaked records hold it.
              </p>
              <CodeTabs name="password" code={(language) => passwordSample(language, context)} />
              <CodeBlock code={PASSWORD_RESPONSE_EXAMPLE} />
            </Section>
          </Section>

          <Section id="monitoring-api" title="Monitoring API">
            <p>
              Watch values and read the reports they raise, under <code>{context.baseUrl}/v2/monitoring</code>, with the same key
              header and rate limit as search. Monitoring calls cost no credits; how many tasks, channels and webhooks you may keep
              depends on your monitoring plan. Ids are strings; times are ISO 8601 in UTC. A call naming an id that is not yours
              answers <code>404</code>.
            </p>
            <p>
              Older integrations: the <Link href="/monitoring/documentation">Monitor API V1</Link>. Both base URLs:{' '}
              <Link href="/monitoring/api">Monitoring API</Link>.
            </p>
            <MonitoringV2Sections context={context} level={3} />
          </Section>
          <Section id="whois-api" title="WHOIS API">
            <WhoisApiSections context={context} />
          </Section>
        </article>
      </div>
    </div>
  );
}
