import { useState } from 'react';
import { REVERSE_WHOIS_MAX_RESULTS, REVERSE_WHOIS_PAGE_SIZE, type ReverseWhoisAnswer } from '@common/whois-rules';
import { Paginator } from '@/components/paginator';
import { asTexts, formatCount } from '../lib/format';
import { HostName } from './host-name';

/** Reverse WHOIS: the matching domains, 20 a page. */
export function ReverseWhoisView({ answer }: { answer: ReverseWhoisAnswer }) {
  const [page, setPage] = useState(1);
  const domains = asTexts(answer.domainsList);
  const pages = Math.max(1, Math.ceil(domains.length / REVERSE_WHOIS_PAGE_SIZE));
  const first = (page - 1) * REVERSE_WHOIS_PAGE_SIZE;
  const total = typeof answer.domainsCount === 'number' ? answer.domainsCount : domains.length;
  return (
    <section className="card whois-table-card" aria-label="Reverse WHOIS results">
      <header className="whois-table-head">
        <p className="whois-count" data-testid="reverse-whois-count">
          {formatCount(total)} {total === 1 ? 'domain' : 'domains'}
          {pages > 1 && <span className="muted"> · page {page} of {pages}</span>}
        </p>
        {answer.nextPageSearchAfter && (
          <p className="muted whois-table-note">The first {formatCount(REVERSE_WHOIS_MAX_RESULTS)} are shown; narrow the terms for the rest.</p>
        )}
      </header>
      <ol className="whois-domain-list" start={first + 1} data-testid="reverse-whois-list">
        {domains.slice(first, first + REVERSE_WHOIS_PAGE_SIZE).map((domain, i) => (
          <li key={`${first + i}-${domain}`} data-testid="reverse-whois-domain">
            <HostName name={domain} />
          </li>
        ))}
      </ol>
      <Paginator page={page} pages={pages} onPage={setPage} />
    </section>
  );
}
