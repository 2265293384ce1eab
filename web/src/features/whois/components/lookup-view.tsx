import { useState } from 'react';
import {
  LOOKUP_DEFAULT_PAGE_SIZE,
  LOOKUP_PAGE_ROWS,
  LOOKUP_PAGE_SIZES,
  WHOIS_TAB_LABELS,
  type LookupRow,
  type WhoisTool,
} from '@common/whois-rules';
import { Paginator } from '@/components/paginator';
import { ScrollRegion } from '@/components/scroll-region';
import { asText, formatCount, formatEpochDay } from '../lib/format';

type PageSize = (typeof LOOKUP_PAGE_SIZES)[number];

/** Reverse IP, MX, NS and subdomain scans: name, first seen, last visit; 25, 50 or 100 a page. */
export function LookupView({ tool, rows }: { tool: WhoisTool; rows: LookupRow[] }) {
  const [size, setSize] = useState<PageSize>(LOOKUP_DEFAULT_PAGE_SIZE);
  const [page, setPage] = useState(1);
  const pages = Math.max(1, Math.ceil(rows.length / size));
  const first = (page - 1) * size;
  return (
    <section className="card whois-table-card" aria-label={`${WHOIS_TAB_LABELS[tool]} results`}>
      <header className="whois-table-head">
        <p className="whois-count" data-testid="lookup-count">
          {formatCount(rows.length)} {rows.length === 1 ? 'row' : 'rows'}
          {pages > 1 && <span className="muted"> · page {page} of {pages}</span>}
        </p>
        <label className="whois-page-size">
          <span className="muted">Rows per page</span>
          <select
            className="input"
            name="lookup-page-size"
            value={size}
            onChange={(event) => {
              setSize(Number(event.currentTarget.value) as PageSize);
              setPage(1);
            }}
          >
            {LOOKUP_PAGE_SIZES.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        </label>
      </header>
      {tool !== 'subdomain_scan' && rows.length >= LOOKUP_PAGE_ROWS && (
        <p className="muted whois-table-note">
          The first {formatCount(LOOKUP_PAGE_ROWS)} rows are shown; the API reads the next ones with <code>from</code>.
        </p>
      )}
      {/* On a phone the table scrolls sideways rather than break a name ("example." / "com"). */}
      <ScrollRegion label={`${WHOIS_TAB_LABELS[tool]} rows`}>
        <table className="whois-table" data-testid="lookup-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">First seen</th>
              <th scope="col">Last visit</th>
            </tr>
          </thead>
          <tbody>
            {rows.slice(first, first + size).map((row, i) => (
              <tr key={`${first + i}-${String(row.name)}`} data-testid="lookup-row">
                <td className="whois-table-name">{asText(row.name)}</td>
                <td>{formatEpochDay(row.first_seen)}</td>
                <td>{formatEpochDay(row.last_visit)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      <Paginator page={page} pages={pages} onPage={setPage} />
    </section>
  );
}
