import { Link } from 'wouter';
import { ApiKeyControl, CodeBlock, fullApiKey, useApiKeyCheck } from '@/features/api-docs';
import { HelpLayout, HelpSection, type TocEntry } from '@/features/docs';
import { useUser } from '@/features/user';
import { usePageTitle } from '@/hooks/use-page-title';
import { KEY_PLACEHOLDER } from '@/lib/api-samples';
import { ReferenceTable } from '@/components/reference-table';
import { BREACH_FIELDS, RANGE_BASE, RANGE_CALLS, V3_BASE, V3_ERRORS, V3_GROUPS } from '../lib/breach-calls';
import { hibpClientSample, SAMPLE_USER_AGENT, V3_KEY_HEADER, type BreachSampleContext } from '../lib/breach-samples';
import { BreachCallDoc } from './breach-call-doc';
import './breach-api-docs.css';

export const BREACH_API_TITLE = 'Breach API v3 and Pwned Passwords';

const TOC: TocEntry[] = [
  { id: 'introduction', title: 'Introduction' },
  { id: 'authentication', title: 'Key and User-Agent' },
  { id: 'rate-limits', title: 'Rate Limits and Caching' },
  { id: 'errors', title: 'Errors' },
  { id: 'pwned-passwords', title: 'Pwned Passwords', children: RANGE_CALLS.map((call) => ({ id: call.id, title: call.title })) },
  ...V3_GROUPS.map((group) => ({ id: group.id, title: group.title, children: group.calls.map((call) => ({ id: call.id, title: call.title })) })),
  { id: 'breach-model', title: 'The Breach Model' },
  { id: 'differences', title: 'What Differs' },
  { id: 'clients', title: 'Existing Clients' },
];

/**
 * /documentation/breach-api: the breach-notification service's two APIs as this server
 * answers them, with the user's own key and this origin in the samples.
 */
export function BreachApiDocsPage() {
  usePageTitle(BREACH_API_TITLE);
  const { data: user } = useUser();
  const { data: check } = useApiKeyCheck();
  const origin = window.location.origin;
  const context: BreachSampleContext = { baseUrl: origin, key: fullApiKey.use() ?? KEY_PLACEHOLDER };

  return (
    <HelpLayout
      title={BREACH_API_TITLE}
      lead="The breach-notification service’s own APIs, answered from our data: point its clients here by changing their base URL."
      aside={<ApiKeyControl user={user} valid={check?.valid} />}
      toc={TOC}
    >
      <HelpSection id="introduction" title="Introduction">
        <p>
          Two APIs of the best-known breach-notification service, with its paths, parameters, field names and status codes, so
          password managers, command-line tools and libraries written for it work against this server unchanged:
        </p>
        <ReferenceTable
          label="Base URLs"
          head={['Base URL', 'API']}
          rows={[
            [`${origin}${RANGE_BASE}/`, 'Pwned Passwords: is a password in our data, without sending it. No key.'],
            [`${origin}${V3_BASE}/`, 'Breach API v3: the catalogue of breaches (no key) and the searches (your key).'],
          ]}
        />
        <p>
          The answers come from our data wells, not from the service: see <a href="#differences">What Differs</a>. The rest of
          our API is on the <Link href="/documentation/api">API Documentation</Link> page.
        </p>
      </HelpSection>

      <HelpSection id="authentication" title="Key and User-Agent">
        <p>
          The searches take your API key, the same key as the <code>/v2</code> API, in the <code>{V3_KEY_HEADER}</code> header, and
          need an active search subscription on your account. Generate the key with the key box at the top of this page: the
          samples fill it in. The catalogue and Pwned Passwords need no key.
        </p>
        <p>
          Send a <code>user-agent</code> header naming your application with every call, as the service asks: the searches refuse
          a call without one with <code>403</code>.
        </p>
        <CodeBlock code={`${V3_KEY_HEADER}: ${context.key}\nuser-agent: ${SAMPLE_USER_AGENT}`} />
      </HelpSection>

      <HelpSection id="rate-limits" title="Rate Limits and Caching">
        <p>
          The searches are limited per key with the key’s <code>/v2</code> calls, one budget for both (10 requests a second
          unless the operator set another rate; <a href="#v3-subscription-status">Subscription Status</a> gives yours per minute
          as <code>Rpm</code>), and each counts toward your daily search limit. Pwned Passwords and the catalogue are limited per
          client address. Past a limit the answer is <code>429</code> with a <code>retry-after</code> header: the whole seconds
          to wait, rounded up.
        </p>
        <p>
          Pwned Passwords answers may be cached for 10 minutes (<code>Cache-Control</code>) and carry an <code>ETag</code> that
          changes when their lines do, a new data well or a removal: send it back in <code>If-None-Match</code> and an unchanged
          answer is <code>304 Not Modified</code>. The catalogue’s answers may be cached for a minute.
        </p>
      </HelpSection>

      <HelpSection id="errors" title="Errors">
        <p>
          Errors under <code>{V3_BASE}</code> come as the service’s <code>{'{"statusCode": 429, "message": "..."}'}</code>, except{' '}
          <code>404</code>: as on the service, its body is empty, and clients read it as “none”. Pwned Passwords answers its
          errors in plain text.
        </p>
        <ReferenceTable label="Error responses" head={['Status', 'Meaning']} rows={V3_ERRORS} />
      </HelpSection>

      <HelpSection id="pwned-passwords" title="Pwned Passwords">
        <p>
          k-anonymity: the client sends only the first 5 characters of a hash and compares the lines of the answer itself. The
          Python and Node.js samples check the password <code>P@ssw0rd</code> and print how many records hold it; cURL shows the
          answer as it comes. Lines end in CRLF.
        </p>
        {RANGE_CALLS.map((call) => (
          <BreachCallDoc key={call.id} call={call} context={context} />
        ))}
      </HelpSection>

      {V3_GROUPS.map((group) => (
        <HelpSection key={group.id} id={group.id} title={group.title}>
          <p>{group.intro}</p>
          {group.calls.map((call) => (
            <BreachCallDoc key={call.id} call={call} context={context} />
          ))}
        </HelpSection>
      ))}

      <BreachModelSection />
      <DifferencesSection />

      <HelpSection id="clients" title="Existing Clients">
        <p>
          A client of the service works here once its base URL is changed: <code>{`${origin}${V3_BASE}`}</code> for the Breach API
          (with your key as its API key), <code>{origin}</code> for Pwned Passwords (clients add <code>/range/</code> themselves).
          A password manager or plugin that lets you set its Pwned Passwords address takes <code>{`${origin}${RANGE_BASE}/`}</code>.
          The service’s npm package, <code>hibp</code>, with its <code>baseUrl</code> option:
        </p>
        <CodeBlock code={hibpClientSample(context)} />
      </HelpSection>
    </HelpLayout>
  );
}

function BreachModelSection() {
  return (
    <HelpSection id="breach-model" title="The Breach Model">
      <p>
        Every call that answers breaches gives them in this shape, built from our catalogue of data wells. <code>DataClasses</code>{' '}
        follow the kinds of data a well holds; a well ingested from stealer-log lines is a stealer log without further steps; the
        operator sets or corrects every field with the <code>well:update</code> command.
      </p>
      <ReferenceTable label="Breach fields" className="docs-fields" head={['Field', 'Type', 'Meaning']} rows={BREACH_FIELDS} />
    </HelpSection>
  );
}

function DifferencesSection() {
  return (
    <HelpSection id="differences" title="What Differs">
      <ul>
        <li>
          <strong>Our corpus.</strong> The breaches are our data wells and every count is records in our data:{' '}
          <code>PwnCount</code>, the counts of Pwned Passwords (from the plaintext passwords and the unsalted SHA-1 and NTLM hashes
          we hold). Removed and opted-out entries never count.
        </li>
        <li>
          <strong>No pastes.</strong> We collect none: <code>pasteaccount</code> always answers <code>404</code>.
        </li>
        <li>
          <strong>Description is plain text</strong>, HTML-escaped, not the service’s HTML with links.
        </li>
        <li>
          <strong>Searches are searches.</strong> They need a search subscription and count toward your daily search limit; they
          spend no credits, since the answers name breaches, never a record’s values.
        </li>
        <li>
          <strong>Sensitive breaches</strong> are never listed by <code>breachedaccount</code>; the domain calls list them to the
          owner of a verified domain.
        </li>
        <li>
          <strong>Domains</strong> are verified on our <Link href="/monitoring/manage/tasks">monitoring</Link> screens (DNS record,
          file or email), not on the service’s dashboard.
        </li>
      </ul>
    </HelpSection>
  );
}
