import { DATA_ERROR_TEXT, domainAgeDays, NO_SOURCE_TEXT, type WhoisContact, type WhoisDataError, type WhoisRecord } from '@common/whois-rules';
import { AlertIcon } from '@/components/icons';
import { asText, asTexts, formatCount, formatWhoisDate } from '../lib/format';

const AVAILABILITY: Record<string, string> = {
  UNAVAILABLE: 'Registered',
  AVAILABLE: 'Available',
  UNDETERMINED: 'Undetermined',
};

const CONTACTS = [
  ['registrant', 'Registrant'],
  ['administrativeContact', 'Administrative contact'],
  ['technicalContact', 'Technical contact'],
] as const;

/** Whole days since creation: the answer's own count, else from its creation date. */
function ageInDays(record: WhoisRecord): number | null {
  if (typeof record.estimatedDomainAge === 'number' && Number.isFinite(record.estimatedDomainAge)) return record.estimatedDomainAge;
  return domainAgeDays(asText(record.createdDate)) ?? domainAgeDays(asText(record.createdDateNormalized)?.replace(' UTC', 'Z').replace(' ', 'T'));
}

export function Facts({ rows, testId }: { rows: [label: string, value: string | undefined][]; testId?: string }) {
  const shown = rows.filter((row): row is [string, string] => row[1] !== undefined);
  if (shown.length === 0) return null;
  return (
    <dl className="whois-facts" data-testid={testId}>
      {shown.map(([label, value]) => (
        <div key={label} className="whois-fact">
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function ValueList({ title, values, testId }: { title: string; values: string[]; testId: string }) {
  if (values.length === 0) return null;
  return (
    <div className="whois-values">
      <h3>{title}</h3>
      <ul data-testid={testId}>
        {values.map((value, i) => (
          <li key={`${i}-${value}`}>{value}</li>
        ))}
      </ul>
    </div>
  );
}

export function ContactCard({ title, contact, withName = false }: { title: string; contact: WhoisContact | undefined; withName?: boolean }) {
  const country = asText(contact?.country);
  const code = asText(contact?.countryCode);
  const rows: [string, string | undefined][] = [
    ['Name', withName ? asText(contact?.name) : undefined],
    ['Organization', asText(contact?.organization)],
    ['State', asText(contact?.state)],
    ['Country', country && code && country !== code ? `${country} (${code})` : (country ?? code)],
  ];
  const empty = rows.every(([, value]) => value === undefined);
  return (
    <section className="whois-contact" aria-label={title}>
      <h3>{title}</h3>
      {empty ? <p className="muted">Not given</p> : <Facts rows={rows} />}
    </section>
  );
}

/** A WHOIS record: the dataError text, registrar, dates, age in days, addresses, contacts, registry data. */
export function WhoisRecordView({ record }: { record: WhoisRecord }) {
  const age = ageInDays(record);
  const dataError = asText(record.dataError);
  const registry = record.registryData;
  const availability = asText(record.domainAvailability);
  return (
    <article className="card whois-record" data-testid="whois-record">
      <header className="whois-record-head">
        <h2 className="whois-domain" data-testid="whois-domain">
          {asText(record.domainName)}
        </h2>
        {availability && (
          <span className={`whois-badge whois-badge-${availability.toLowerCase()}`} data-testid="whois-availability">
            {AVAILABILITY[availability] ?? availability}
          </span>
        )}
      </header>
      {dataError && (
        <p className="whois-notice" role="note" data-testid="whois-data-error">
          <AlertIcon width={16} height={16} />
          {dataError === 'MISSING_WHOIS_DATA' && availability === 'UNDETERMINED'
            ? NO_SOURCE_TEXT
            : (DATA_ERROR_TEXT[dataError as WhoisDataError] ?? dataError)}
        </p>
      )}
      <Facts
        testId="whois-facts"
        rows={[
          ['Registrar', asText(record.registrarName)],
          ['Contact email', asText(record.contactEmail)],
          ['Created', formatWhoisDate(asText(record.createdDate))],
          ['Updated', formatWhoisDate(asText(record.updatedDate))],
          ['Expires', formatWhoisDate(asText(record.expiresDate))],
          ['Domain age', age === null ? undefined : `${formatCount(age)} ${age === 1 ? 'day' : 'days'}`],
          ['Status', asTexts(record.status).join(', ') || undefined],
        ]}
      />
      <div className="whois-lists">
        <ValueList title="Name servers" values={asTexts(record.nameServers?.hostNames)} testId="whois-name-servers" />
        <ValueList title="IP addresses" values={asTexts(record.ips)} testId="whois-ips" />
      </div>
      <div className="whois-contacts">
        {CONTACTS.map(([key, title]) => (
          <ContactCard key={key} title={title} contact={record[key]} />
        ))}
      </div>
      {registry && (
        <details className="whois-registry">
          <summary>Registry data</summary>
          <Facts
            rows={[
              ['Registrar', asText(registry.registrarName)],
              ['WHOIS server', asText(registry.whoisServer)],
              ['Created', formatWhoisDate(asText(registry.createdDate))],
              ['Updated', formatWhoisDate(asText(registry.updatedDate))],
              ['Expires', formatWhoisDate(asText(registry.expiresDate))],
              ['Status', asTexts(registry.status).join(', ') || undefined],
              ['Name servers', asTexts(registry.nameServers?.hostNames).join(', ') || undefined],
            ]}
          />
        </details>
      )}
    </article>
  );
}
