import {
  hasData,
  lookupRows,
  NO_CHARGE_TEXT,
  WHOIS_MESSAGES,
  type WhoisAnswerOf,
  type WhoisTool,
} from '@common/whois-rules';
import { GlobeIcon } from '@/components/icons';
import type { WhoisResult } from '../api/use-whois';
import { asText, formatIsoTime } from '../lib/format';
import { HistoryView } from './history-view';
import { LookupView } from './lookup-view';
import { ReverseWhoisView } from './reverse-whois-view';
import { WhoisRecordView } from './whois-record-view';

/** Where an answer came from, in words (WhoisResponse.source). */
const SOURCES: Record<string, string> = {
  local: 'Local store',
  demo: 'Demo data',
  'live-rdap': 'RDAP',
  'live-whois': 'WHOIS server',
  whoisxml: 'WhoisXML API',
  none: 'No source knew it',
};

/** One tab's results: what was asked, where the answer came from, and the tool's view. */
export function WhoisResults({ tool, result }: { tool: WhoisTool; result: WhoisResult }) {
  const { query, response } = result;
  const source = asText(response.source);
  return (
    <div className="whois-results" data-testid={`whois-results-${tool}`}>
      <p className="whois-results-head muted">
        <span>
          Results for <span className="whois-query-echo" data-testid="whois-query-echo">{query}</span>
        </span>
        <span data-testid="whois-source">
          {source ? `${SOURCES[source] ?? source} · ` : ''}
          {formatIsoTime(asText(response.fetched_at))}
        </span>
      </p>
      {/* A WHOIS record without data still shows, with its availability (WhoisRecordView). */}
      {tool !== 'whois' && !hasData(tool, response.data) ? (
        <section className="card empty-state" data-testid="whois-empty">
          <span className="empty-icon">
            <GlobeIcon width={28} height={28} />
          </span>
          <h2>{WHOIS_MESSAGES.noResults}</h2>
          <p className="muted">Nothing is known for this query yet. {NO_CHARGE_TEXT}</p>
        </section>
      ) : (
        <ToolView tool={tool} data={response.data} />
      )}
    </div>
  );
}

function ToolView({ tool, data }: { tool: WhoisTool; data: WhoisAnswerOf[WhoisTool] }) {
  switch (tool) {
    case 'whois':
      return <WhoisRecordView record={data as WhoisAnswerOf['whois']} />;
    case 'whois_history':
      return <HistoryView answer={data as WhoisAnswerOf['whois_history']} />;
    case 'reverse_whois':
      return <ReverseWhoisView answer={data as WhoisAnswerOf['reverse_whois']} />;
    default:
      return <LookupView tool={tool} rows={lookupRows(tool, data)} />;
  }
}
