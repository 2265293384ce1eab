import { Link } from 'wouter';
import { usePageTitle } from '@/hooks/use-page-title';
import { BRAND } from '@/lib/brand';
import { GUIDE_SECTIONS, liveExampleHref, SEARCHABLE_FIELDS, type SearchExample } from '../lib/search-examples';
import { HashingHelper } from './hashing-helper';
import { HelpLayout, HelpSection } from './help-layout';
import { ReferenceTable } from '@/components/reference-table';

const TOC = [
  { id: 'fields-list', title: 'Searchable Fields' },
  { id: 'password-hashing', title: 'Password Hashing' },
  ...GUIDE_SECTIONS.map(({ id, title }) => ({ id, title })),
];

function Example({ example }: { example: SearchExample }) {
  return (
    <div className="example" data-testid="search-example">
      <div>
        <div className="example-title">{example.title}</div>
        <code className="example-query">{example.query}</code>
        <p className="example-note">{example.note}</p>
      </div>
      <Link href={liveExampleHref(example)} className="button button-secondary button-small" data-testid="live-example">
        Live Example
      </Link>
    </div>
  );
}

/** /documentation/search-guide: the query language with runnable examples. */
export function SearchGuidePage() {
  usePageTitle('Search Guide');
  return (
    <HelpLayout
      title="Search Guide"
      lead={`What ${BRAND} can search and how to write a query. Every Live Example opens the search screen with the query filled in.`}
      updated="Updated April 2025"
      toc={TOC}
    >
      <HelpSection id="fields-list" title="Searchable Fields">
        <p>
          Write <code>field:value</code> to search one field. A value alone searches every field, or the field of the tab you
          picked on the search screen.
        </p>
        <p data-testid="one-term-note">
          Without a search subscription a search holds one term (one field and one value) and shows its count; combining terms
          with AND or OR, wildcards, regular expressions and source filters need a <Link href="/subscriptions/search">search subscription</Link>.
        </p>
        <ReferenceTable label="Searchable fields" className="help-fields" head={['Field', 'Holds']} rows={SEARCHABLE_FIELDS.map((field) => [field.name, field.holds])} />
      </HelpSection>

      <HelpSection id="password-hashing" title="Password Hashing">
        <p>
          Leaks often hold a password&apos;s hash rather than the password. Searching a plaintext password on the Password tab
          finds it as leaked; to find its hashes too, search them on the Hashed Password tab or with <code>hashed_password:</code>.
          Type a password below to get its MD5, SHA-1, SHA-256, SHA-512 and Base64.
        </p>
        <p>
          <strong>The hashes are computed in your browser:</strong> what you type here is never sent anywhere.
        </p>
        <HashingHelper />
      </HelpSection>

      {GUIDE_SECTIONS.map((section) => (
        <HelpSection key={section.id} id={section.id} title={section.title}>
          <ul>
            {section.intro.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
          <div className="example-list">
            {section.examples.map((example) => (
              <Example key={example.query} example={example} />
            ))}
          </div>
        </HelpSection>
      ))}
    </HelpLayout>
  );
}
