/**
 * Formats that carry WHOIS records, kept as snapshots (whois/snapshots.ts): RDAP domain
 * objects (one per line) and WhoisXML's CSV database download.
 */
import { checkDomain, type WhoisContact, type WhoisRecord } from '../../../common/whois-rules';
import { RdapMapError, isRedactedValue, rdapToWhoisRecord } from '../../rdap-map';
import { snapshotRow } from '../../snapshots';
import { BadRecord, epochSeconds, hostOrNull, parseJsonObject, type ParseContext, type RecordParser } from './common';

function stageRecord(ctx: ParseContext, record: WhoisRecord, observedAt: Date): void {
  ctx.stage.addSnapshot(snapshotRow(record, ctx.source, observedAt));
  ctx.good();
}

/** When the registry last updated the data it answered: the RDAP event "last update of RDAP database". */
function rdapUpdated(obj: Record<string, unknown>): Date | null {
  if (!Array.isArray(obj.events)) return null;
  for (const event of obj.events.slice(0, 100)) {
    if (typeof event !== 'object' || event === null) continue;
    const { eventAction, eventDate } = event as Record<string, unknown>;
    if (eventAction !== 'last update of RDAP database') continue;
    try {
      const seconds = epochSeconds(eventDate, 'eventDate');
      if (seconds !== null) return new Date(seconds * 1000);
    } catch {
      return null;
    }
  }
  return null;
}

/** One RFC 9083 domain object per line, observed at its "last update of RDAP database" event (else the import's time). */
export function rdapParser(ctx: ParseContext): RecordParser {
  return {
    line(text) {
      if (text.trim() === '') return;
      const obj = parseJsonObject(text);
      const observedAt = rdapUpdated(obj) ?? ctx.observedAt;
      let record: WhoisRecord;
      try {
        record = rdapToWhoisRecord(obj, observedAt);
      } catch (e) {
        if (e instanceof RdapMapError) throw new BadRecord(e.message);
        throw e;
      }
      stageRecord(ctx, record, observedAt);
    },
    end() {},
  };
}

// ---------------------------------------------------------------------------
// CSV (RFC 4180: quoted fields may hold commas, quotes doubled, and line breaks)

const MAX_CSV_RECORD_CHARS = 1 << 20;
const MAX_FIELD_CHARS = 1000;

/** Reads CSV records over lines; a record may span lines inside quotes. */
class CsvReader {
  private fields: string[] = [];
  private field = '';
  private quoted = false;
  private size = 0;
  private startLine = 0;
  private startText = '';

  constructor(
    private readonly onRecord: (fields: string[], lineNo: number, text: string) => void,
    private readonly onBad: (lineNo: number, reason: string, text: string) => void,
  ) {}

  line(text: string, lineNo: number): void {
    if (!this.quoted) {
      this.startLine = lineNo;
      this.startText = text;
      this.size = 0;
    } else {
      this.field += '\n';
    }
    this.size += text.length + 1;
    if (this.size > MAX_CSV_RECORD_CHARS) {
      this.reset();
      this.onBad(this.startLine, `record longer than ${MAX_CSV_RECORD_CHARS} characters`, this.startText);
      return;
    }
    let i = 0;
    let atFieldStart = !this.quoted && this.field === '';
    while (i < text.length) {
      const c = text[i]!;
      if (this.quoted) {
        if (c === '"') {
          if (text[i + 1] === '"') {
            this.field += '"';
            i += 2;
            continue;
          }
          this.quoted = false;
        } else this.field += c;
        i++;
        continue;
      }
      if (c === '"' && atFieldStart) {
        this.quoted = true;
        atFieldStart = false;
      } else if (c === ',') {
        this.fields.push(this.field);
        this.field = '';
        atFieldStart = true;
      } else {
        this.field += c;
        atFieldStart = false;
      }
      i++;
    }
    if (this.quoted) return;
    this.fields.push(this.field);
    const fields = this.fields;
    this.reset();
    if (fields.length === 1 && fields[0]!.trim() === '') return;
    this.onRecord(fields, this.startLine, this.startText);
  }

  end(): void {
    if (this.quoted) {
      this.reset();
      this.onBad(this.startLine, 'input ends inside a quoted field', this.startText);
    }
  }

  private reset(): void {
    this.fields = [];
    this.field = '';
    this.quoted = false;
  }
}

type Row = (name: string) => string | undefined;

function value(row: Row, name: string): string | undefined {
  const v = row(name)?.trim();
  // eslint-disable-next-line no-control-regex
  return v && v.length <= MAX_FIELD_CHARS ? v.replace(/[\u0000-\u001f\u007f]+/g, ' ') : undefined;
}

/** "2012-02-01" or "2012-02-01 10:00:00 UTC" → WhoisXML's normalised form "YYYY-MM-DD HH:mm:ss UTC". */
function normalisedDate(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const m = /^(\d{4}-\d\d-\d\d)(?:[ T](\d\d:\d\d:\d\d))?/.exec(text);
  return m ? `${m[1]} ${m[2] ?? '00:00:00'} UTC` : undefined;
}

interface ContactResult {
  contact: WhoisContact | undefined;
  redacted: boolean;
}

/** A contact from the `<prefix>_*` columns; placeholders dropped and noted. */
function csvContact(row: Row, prefix: string): ContactResult {
  let redacted = false;
  const shown = (name: string): string | undefined => {
    const v = value(row, `${prefix}_${name}`);
    if (v !== undefined && isRedactedValue(v)) {
      redacted = true;
      return undefined;
    }
    return v;
  };
  const country = shown('country');
  const code = shown('countryCode') ?? (country && /^[a-z]{2}$/i.test(country) ? country : undefined);
  const contact: WhoisContact = {};
  const set = (key: keyof WhoisContact, v: string | undefined) => {
    if (v !== undefined) contact[key] = v;
  };
  set('name', shown('name'));
  set('organization', shown('organization'));
  set('state', shown('state'));
  set('country', country && country.length > 2 ? country : undefined);
  set('countryCode', code?.toUpperCase());
  set('email', shown('email'));
  return { contact: Object.keys(contact).length > 0 ? contact : undefined, redacted };
}

/** A WHOIS record from one CSV row (WhoisXML's "simple"/"regular"/"full" columns; others ignored). */
export function whoisxmlRecord(row: Row): WhoisRecord {
  const domain = checkDomain(value(row, 'domainName') ?? '');
  if (!domain.ok) throw new BadRecord('domainName missing or invalid');
  const registrant = csvContact(row, 'registrant');
  const admin = csvContact(row, 'administrativeContact');
  const tech = csvContact(row, 'technicalContact');
  const hostNames = [
    ...new Set(
      (value(row, 'nameServers') ?? '')
        .split(/[|,\s]+/)
        .map((h) => hostOrNull(h))
        .filter((h): h is string => h !== null),
    ),
  ];
  const status = [
    ...new Set(
      (value(row, 'status') ?? '')
        .split(/[|,\s]+/)
        .filter((s) => /^[a-z][a-z0-9]{1,63}$/i.test(s)),
    ),
  ];
  const created = value(row, 'createdDate') ?? value(row, 'standardRegCreatedDate');
  const contactEmail = value(row, 'contactEmail');
  const record: WhoisRecord = { domainName: domain.value, domainAvailability: 'UNAVAILABLE' };
  const registrarName = value(row, 'registrarName');
  if (registrarName) record.registrarName = registrarName;
  if (contactEmail && !isRedactedValue(contactEmail)) record.contactEmail = contactEmail;
  if (created) record.createdDate = created;
  const normalised = normalisedDate(value(row, 'standardRegCreatedDate') ?? created);
  if (normalised) record.createdDateNormalized = normalised;
  const updated = value(row, 'updatedDate') ?? value(row, 'standardRegUpdatedDate');
  if (updated) record.updatedDate = updated;
  const expires = value(row, 'expiresDate') ?? value(row, 'standardRegExpiresDate');
  if (expires) record.expiresDate = expires;
  if (status.length > 0) record.status = status;
  if (hostNames.length > 0) record.nameServers = { hostNames };
  if (registrant.contact) record.registrant = registrant.contact;
  if (admin.contact) record.administrativeContact = admin.contact;
  if (tech.contact) record.technicalContact = tech.contact;
  const whoisServer = value(row, 'whoisServer');
  if (whoisServer && /^[a-z0-9.-]{1,253}$/i.test(whoisServer)) record.registryData = { whoisServer: whoisServer.toLowerCase() };
  if (registrant.redacted) record.dataError = 'MASKED_WHOIS_DATA';
  return record;
}

/** WhoisXML's CSV download: a header row naming the columns, then one domain a row, observed at Audit_auditUpdatedDate. */
export function whoisxmlCsvParser(ctx: ParseContext): RecordParser {
  let header: Map<string, number> | null = null;
  const reader = new CsvReader(
    (fields, lineNo, text) => {
      try {
        if (header === null) {
          header = new Map(fields.map((f, i) => [f.trim().toLowerCase(), i]));
          if (!header.has('domainname')) {
            header = null;
            throw new BadRecord('the first row must be the header, with a domainName column');
          }
          return;
        }
        if (fields.length > header.size) throw new BadRecord(`${fields.length} fields, the header has ${header.size}`);
        const columns = header;
        const row: Row = (name) => {
          const i = columns.get(name.toLowerCase());
          return i === undefined ? undefined : fields[i];
        };
        const audit = epochSeconds(value(row, 'Audit_auditUpdatedDate'), 'Audit_auditUpdatedDate');
        const observedAt = audit !== null ? new Date(audit * 1000) : ctx.observedAt;
        stageRecord(ctx, whoisxmlRecord(row), observedAt);
      } catch (e) {
        if (!(e instanceof BadRecord)) throw e;
        ctx.bad(lineNo, e.message, text);
      }
    },
    (lineNo, reason, text) => ctx.bad(lineNo, reason, text),
  );
  return { line: (text, lineNo) => reader.line(text, lineNo), end: () => reader.end() };
}
