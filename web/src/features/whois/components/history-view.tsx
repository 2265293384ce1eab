import type { WhoisHistoryAnswer, WhoisHistoryRecord } from '@common/whois-rules';
import { asText, asTexts, formatCount, formatIsoTime, formatWhoisDate } from '../lib/format';
import { ContactCard, Facts, ValueList } from './whois-record-view';

/** When a record was last seen (its audit), else its own update date: the order of the list. */
function seenAt(record: WhoisHistoryRecord): number {
  for (const candidate of [record.audit?.updatedDate, record.audit?.createdDate, record.updatedDateISO8601, record.createdDateISO8601]) {
    const ms = typeof candidate === 'string' ? Date.parse(candidate) : NaN;
    if (!Number.isNaN(ms)) return ms;
  }
  return -Infinity;
}

/** Newest first; records without a time go last, in the order given. */
export function newestFirst(records: readonly WhoisHistoryRecord[]): WhoisHistoryRecord[] {
  return records
    .map((record, index) => ({ record, index, at: seenAt(record) }))
    .sort((a, b) => b.at - a.at || a.index - b.index)
    .map(({ record }) => record);
}

/** WHOIS history: every record kept for the domain, newest first. */
export function HistoryView({ answer }: { answer: WhoisHistoryAnswer }) {
  const records = newestFirst(answer.records);
  return (
    <section className="whois-history" aria-label="WHOIS history">
      <p className="whois-count muted" data-testid="whois-history-count">
        {formatCount(records.length)} {records.length === 1 ? 'record' : 'records'}
      </p>
      <ol className="whois-history-list">
        {records.map((record, index) => (
          <HistoryRecord key={index} record={record} />
        ))}
      </ol>
    </section>
  );
}

function HistoryRecord({ record }: { record: WhoisHistoryRecord }) {
  const first = asText(record.audit?.createdDate);
  const last = asText(record.audit?.updatedDate);
  return (
    <li className="card whois-history-record" data-testid="whois-history-record">
      <header className="whois-record-head">
        <h2 className="whois-domain">{asText(record.domainName)}</h2>
        {(first || last) && (
          <span className="whois-seen muted" data-testid="whois-history-seen">
            Seen {formatIsoTime(first ?? last)}
            {last && last !== first ? ` – ${formatIsoTime(last)}` : ''}
          </span>
        )}
      </header>
      <Facts
        rows={[
          ['Registrar', asText(record.registrarName)],
          ['WHOIS server', asText(record.whoisServer)],
          ['Created', formatWhoisDate(asText(record.createdDateISO8601) ?? asText(record.createdDateRaw))],
          ['Updated', formatWhoisDate(asText(record.updatedDateISO8601) ?? asText(record.updatedDateRaw))],
          ['Expires', formatWhoisDate(asText(record.expiresDateISO8601) ?? asText(record.expiresDateRaw))],
          ['Status', asTexts(record.status).join(', ') || undefined],
        ]}
      />
      <ValueList title="Name servers" values={asTexts(record.nameServers)} testId="whois-history-name-servers" />
      <div className="whois-contacts">
        <ContactCard title="Registrant" contact={record.registrantContact} withName />
        <ContactCard title="Administrative contact" contact={record.administrativeContact} withName />
        <ContactCard title="Technical contact" contact={record.technicalContact} withName />
      </div>
    </li>
  );
}
