/**
 * WHOIS text (RFC 3912 has no schema) → our WHOIS record. Reads the `Key: value`
 * lines of the ICANN gTLD format and the common ccTLD spellings (`nserver`, `paid-till`,
 * `created`…); stops at the `>>> Last update` line after which registries put their terms.
 * The text is hostile: lines, values and lists are bounded, values are kept as text.
 */
import { checkDomain, domainAgeDays, type WhoisContact, type WhoisRecord } from '../../common/whois-rules';
import { normaliseHost } from '../names';
import { isRedactedValue } from '../rdap-map';
import { referralHost } from './port43';
import { storableText } from './storable-text';

const MAX_LINES = 5000;
const MAX_VALUE = 500;
const MAX_LIST = 32;

/** Keys (lower case, spaces collapsed) of each field, in the spellings registries use. */
const KEYS = {
  registrar: ['registrar', 'sponsoring registrar', 'registrar name'],
  whoisServer: ['registrar whois server', 'whois server'],
  created: ['creation date', 'created', 'created on', 'created date', 'registered on', 'registered', 'registration date', 'registration time', 'domain registration date'],
  updated: ['updated date', 'last updated', 'last updated on', 'last modified', 'last-update', 'changed', 'modified', 'updated'],
  expires: ['registry expiry date', 'registrar registration expiration date', 'registry expiration date', 'expiration date', 'expiry date', 'expire date', 'expires', 'expires on', 'paid-till', 'renewal date'],
  nameServer: ['name server', 'name servers', 'nameserver', 'nameservers', 'nserver'],
  status: ['domain status', 'status'],
} as const;

type Field = keyof typeof KEYS;
const FIELD_OF = new Map<string, Field>(Object.entries(KEYS).flatMap(([field, keys]) => keys.map((key) => [key, field as Field])));

type ContactRole = 'registrant' | 'administrativeContact' | 'technicalContact';
const ROLE_OF: Record<string, ContactRole> = {
  registrant: 'registrant',
  admin: 'administrativeContact',
  administrative: 'administrativeContact',
  tech: 'technicalContact',
  technical: 'technicalContact',
};
/** A Map, not an object: a key from the text ("Registrant constructor") must find nothing. */
const CONTACT_FIELD_OF = new Map<string, keyof WhoisContact>([
  ['name', 'name'],
  ['organization', 'organization'],
  ['organisation', 'organization'],
  ['org', 'organization'],
  ['state/province', 'state'],
  ['state', 'state'],
  ['province', 'state'],
  ['country', 'country'],
  ['country code', 'countryCode'],
  ['email', 'email'],
  ['e-mail', 'email'],
]);

/** Lines saying the domain is not registered (RIPE-style `%` comments included). */
const NOT_FOUND = /^[%#\s]*(?:no match(?: for)?\b|not found\b|no data found|no entries found|no object found|domain not found|object does not exist|the queried object does not exist|status:\s*(?:free|available)\b)/im;

export interface ParsedWhois {
  record: WhoisRecord;
  /** The `Registrar WHOIS Server:` host of a thin registry's answer (checked), if any. */
  registrarWhoisServer: string | null;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const pad = (n: string | number) => String(n).padStart(2, '0');

/**
 * The instant a WHOIS date means, in the spellings registries use: ISO 8601 and its
 * variants (`2001-03-04T05:06:07Z`, `2001-03-04 05:06:07+03`, `2001.03.04`), `04-Mar-2001`,
 * `04.03.2001`. No time zone means UTC. Anything else is no date (Date.parse alone would
 * read "sometime in 1999" as a date).
 */
function whoisDate(value: string): number | undefined {
  let iso: string | undefined;
  const ymd = /^(\d{4})[-./](\d{2})[-./](\d{2})(?:[T ]+(\d{2}):(\d{2})(?::(\d{2}))?(\.\d+)?)?\s*(Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?/i.exec(value);
  const dmy = /^(\d{1,2})[-. /]([a-z]{3}|\d{2})[-. /](\d{4})\b/i.exec(value);
  if (ymd) {
    const [, y, m, d, hh = '00', mm = '00', ss = '00', frac = '', zone = 'Z'] = ymd;
    const offset = /^(?:z|utc|gmt)$/i.test(zone) ? 'Z' : zone.length === 3 ? `${zone}:00` : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
    iso = `${y}-${m}-${d}T${hh}:${mm}:${ss}${frac}${offset}`;
  } else if (dmy) {
    const month = /^\d+$/.test(dmy[2]!) ? Number(dmy[2]) : MONTHS.indexOf(dmy[2]!.toLowerCase()) + 1;
    if (month >= 1 && month <= 12) iso = `${dmy[3]}-${pad(month)}-${pad(dmy[1]!)}T00:00:00Z`;
  }
  const ms = iso === undefined ? NaN : Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

/** "YYYY-MM-DD HH:mm:ss UTC" of a date the text gave, or undefined when it is no date. */
function normalisedDate(date: string | undefined): string | undefined {
  const ms = date === undefined ? undefined : whoisDate(date);
  if (ms === undefined) return undefined;
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

function pushUnique(list: string[], value: string): void {
  if (list.length < MAX_LIST && !list.includes(value)) list.push(value);
}

/**
 * Parses one WHOIS answer about `domain`. A "no match" answer gives a record with
 * MISSING_WHOIS_DATA (AVAILABLE); redaction placeholders in contacts give
 * MASKED_WHOIS_DATA (the placeholders themselves are dropped).
 */
export function parseWhoisText(text: string, domain: string, fetchedAt: Date = new Date()): ParsedWhois {
  const single: Partial<Record<Exclude<Field, 'nameServer' | 'status'>, string>> = {};
  const hostNames: string[] = [];
  const status: string[] = [];
  const contacts: Record<ContactRole, WhoisContact> = { registrant: {}, administrativeContact: {}, technicalContact: {} };
  let redacted = false;

  const lines = text.split('\n', MAX_LINES);
  for (const raw of lines) {
    const line = storableText(raw);
    if (/^\s*>>>/.test(line)) break;
    const match = /^\s*([A-Za-z][A-Za-z0-9 /_.-]{0,60}?)\s*\.*:\s*(.*?)\s*$/.exec(line);
    if (!match) continue;
    const key = match[1]!.toLowerCase().replace(/[\s_]+/g, ' ');
    const value = match[2]!.slice(0, MAX_VALUE);
    if (value === '') continue;

    const contact = /^(registrant|admin|administrative|tech|technical)(?: contact)? (.+)$/.exec(key);
    if (contact) {
      const role = ROLE_OF[contact[1]!]!;
      const field = CONTACT_FIELD_OF.get(contact[2]!);
      if (!field) continue;
      if (isRedactedValue(value)) {
        if (role === 'registrant') redacted = true;
        continue;
      }
      const target = contacts[role];
      if (target[field] !== undefined) continue;
      if (field === 'country' && /^[a-z]{2}$/i.test(value)) target.countryCode ??= value.toUpperCase();
      else if (field === 'countryCode') target.countryCode = /^[a-z]{2}$/i.test(value) ? value.toUpperCase() : undefined;
      else target[field] = value;
      continue;
    }

    const field = FIELD_OF.get(key);
    if (field === undefined) continue;
    if (field === 'nameServer') {
      const host = checkDomain(normaliseHost(value.split(/\s+/)[0]!));
      if (host.ok) pushUnique(hostNames, host.value);
    } else if (field === 'status') {
      // "clientTransferProhibited https://icann.org/epp#clientTransferProhibited": the code only.
      const code = value.split(/\s+/)[0]!;
      if (code.length <= 64) pushUnique(status, code);
    } else {
      single[field] ??= value;
    }
  }

  const created = single.created;
  const createdMs = created === undefined ? undefined : whoisDate(created);
  const registered = created !== undefined || single.registrar !== undefined || hostNames.length > 0;
  const missing = !registered && NOT_FOUND.test(text.slice(0, 64 * 1024));
  const contactOf = (role: ContactRole) => (Object.keys(contacts[role]).length > 0 ? contacts[role] : undefined);
  const registrant = contactOf('registrant');
  const administrativeContact = contactOf('administrativeContact');
  const technicalContact = contactOf('technicalContact');
  const registrarName = single.registrar !== undefined && !isRedactedValue(single.registrar) ? single.registrar : undefined;

  const record = withoutUndefined<WhoisRecord>({
    domainName: domain,
    registrarName,
    contactEmail: registrant?.email ?? administrativeContact?.email ?? technicalContact?.email,
    createdDate: created,
    createdDateNormalized: normalisedDate(created),
    updatedDate: single.updated,
    expiresDate: single.expires,
    estimatedDomainAge: createdMs === undefined ? undefined : (domainAgeDays(new Date(createdMs).toISOString(), fetchedAt) ?? undefined),
    domainAvailability: missing ? 'AVAILABLE' : registered ? 'UNAVAILABLE' : 'UNDETERMINED',
    status: status.length > 0 ? status : undefined,
    nameServers: hostNames.length > 0 ? { hostNames } : undefined,
    registrant,
    administrativeContact,
    technicalContact,
    dataError: missing ? 'MISSING_WHOIS_DATA' : redacted ? 'MASKED_WHOIS_DATA' : undefined,
  });
  const server = single.whoisServer === undefined ? null : referralHost(single.whoisServer);
  return { record, registrarWhoisServer: server };
}

/** The server IANA refers a TLD to: its `refer:` line, else its `whois:` line; null when none. */
export function ianaReferral(text: string): string | null {
  const refer = /^\s*refer:\s*(\S+)/im.exec(text)?.[1] ?? /^\s*whois:\s*(\S+)/im.exec(text)?.[1];
  return refer === undefined ? null : referralHost(refer);
}

/** The fields of a registry's record that describe the registry's view (WhoisRecord.registryData). */
export function registryDataOf(record: WhoisRecord, whoisServer: string): NonNullable<WhoisRecord['registryData']> {
  return withoutUndefined({
    registrarName: record.registrarName,
    whoisServer,
    createdDate: record.createdDate,
    updatedDate: record.updatedDate,
    expiresDate: record.expiresDate,
    status: record.status,
    nameServers: record.nameServers ? { hostNames: record.nameServers.hostNames } : undefined,
  });
}
