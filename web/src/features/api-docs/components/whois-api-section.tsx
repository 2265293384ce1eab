import { Link } from 'wouter';
import { HelpSection, type TocEntry } from '@/features/docs';
import { CallDoc } from '@/features/monitoring-docs';
import { HISTORY_COST } from '@common/whois-rules';
import type { SampleContext } from '@/lib/api-samples';
import { endpointOf } from '@/lib/api-reference';
import { WHOIS_CALLS, WHOIS_CREDITS_CALL, WHOIS_ERRORS } from '../lib/whois-calls';
import { ReferenceTable } from '@/components/reference-table';

/** The WHOIS API's table of contents (Search, Credits). */
export const WHOIS_TOC: TocEntry[] = [
  { id: 'whois-search', title: 'Search' },
  { id: 'whois-credits', title: 'Credits' },
];

/** /documentation/api's WHOIS API: one search call per search_type, and the credit balance. */
export function WhoisApiSections({ context }: { context: SampleContext }) {
  return (
    <>
      <p>
        WHOIS records, their history, reverse WHOIS, reverse IP, MX and NS lookups and subdomain scans, with the same key header
        and rate limit as search. They spend WHOIS credits, not search credits: 1 a call, WHOIS history {HISTORY_COST}. An
        answer without data costs nothing: a WHOIS record with <code>MISSING_WHOIS_DATA</code>, or an empty list (no history
        record, no domain, no row); nor does a call no source could answer (<code>503</code>). Every answer gives what is left in{' '}
        <code>remaining_credits</code>, where the data came from in <code>source</code> and when in <code>fetched_at</code>.
        Errors come as <code>{'{"error": "message"}'}</code>:
      </p>
      <ReferenceTable label="WHOIS errors" head={['Status', 'Meaning', 'error']} rows={WHOIS_ERRORS.map(([status, text, error]) => [status, text, error && <code>{error}</code>])} />
      <HelpSection id="whois-search" title="Search" level={3}>
        <p>
          One call, <code>{endpointOf('v2WhoisSearch')}</code>, for every tool: <code>search_type</code> names it and the other fields
          give the value. The answer’s <code>data</code> has the tool’s own shape, shown under each.
        </p>
        {WHOIS_CALLS.map((call) => (
          <CallDoc key={call.id} call={call} context={context} level={4} />
        ))}
      </HelpSection>
      <HelpSection id="whois-credits" title="Credits" level={3}>
        <p>
          Buy WHOIS credits on the <Link href="/subscriptions/whois-credits">WHOIS credits</Link> page; this call reads the balance.
        </p>
        <CallDoc call={WHOIS_CREDITS_CALL} context={context} level={4} />
      </HelpSection>
    </>
  );
}
