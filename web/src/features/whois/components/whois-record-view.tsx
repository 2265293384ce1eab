import {
  DATA_ERROR_TEXT,
  domainAgeDays,
  hasData,
  NO_CHARGE_TEXT,
  NO_RECORD_TEXT,
  type DomainAvailability,
  type WhoisContact,
  type WhoisRecord,
} from '@common/whois-rules';
import { AlertIcon, InfoIcon } from '@/components/icons';
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

/**
 * A WHOIS record: the dataError text, registrar, dates, age in days, addresses, contacts,
 * registry data. A record without data (MISSING_WHOIS_DATA: not registered, or unknown to
 * every source) shows its availability and why, and no contact cards: there is nothing
 * to put in them, and the lookup cost nothing.
 */
export function WhoisRecordView({ record }: { record: WhoisRecord }) {
  const age = ageInDays(record);
  const dataError = asText(record.dataError);
  const registry = record.registryData;
  const availability = asText(record.domainAvailability);
  const nameServers = asTexts(record.nameServers?.hostNames);
  const ips = asTexts(record.ips);
  const withData = hasData('whois', record);
  // The record is hostile text: only its own known values pick a text.
  const notice = withData
    ? dataError && (Object.hasOwn(DATA_ERROR_TEXT, dataError) ? DATA_ERROR_TEXT[dataError as keyof typeof DATA_ERROR_TEXT] : dataError)
    : `${availability && Object.hasOwn(NO_RECORD_TEXT, availability) ? NO_RECORD_TEXT[availability as DomainAvailability] : NO_RECORD_TEXT.UNDETERMINED} ${NO_CHARGE_TEXT}`;
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
      {notice && (
        <p className={withData ? 'whois-notice' : 'whois-notice whois-notice-info'} role="note" data-testid="whois-data-error">
          {withData ? <AlertIcon width={16} height={16} /> : <InfoIcon width={16} height={16} />}
          {notice}
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
      {(nameServers.length > 0 || ips.length > 0) && (
        <div className="whois-lists">
          <ValueList title="Name servers" values={nameServers} testId="whois-name-servers" />
          <ValueList title="IP addresses" values={ips} testId="whois-ips" />
        </div>
      )}
      {withData && (
        <div className="whois-contacts">
          {CONTACTS.map(([key, title]) => (
            <ContactCard key={key} title={title} contact={record[key]} />
          ))}
        </div>
      )}
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
