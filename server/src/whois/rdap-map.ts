/**
 * RDAP (RFC 9083) domain object → our WHOIS record (common/whois-rules.ts), the
 * mapping of docs/whois.md "RDAP to our fields". Used by the live provider for
 * registry and registrar answers and by `whois-ingest --format rdap`.
 *
 * The input is hostile: it is walked once into a bounded copy (strings longer than
 * MAX_STRING dropped, arrays cut to MAX_ITEMS, JSON nested deeper than MAX_JSON_DEPTH and
 * entities nested deeper than MAX_ENTITY_DEPTH ignored) and only then read.
 */
import {
  checkDomain,
  checkIp,
  domainAgeDays,
  type WhoisContact,
  type WhoisRecord,
} from '../common/whois-rules';
import { normaliseHost } from './names';
import { storableText } from './live/storable-text';

/** Thrown when the input is not an RDAP domain object; the caller reports or skips it. */
export class RdapMapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RdapMapError';
  }
}

const MAX_STRING = 1000;
const MAX_ITEMS = 100;
const MAX_JSON_DEPTH = 32;
const MAX_ENTITY_DEPTH = 8;
const MAX_STATUS = 32;

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** The bounded copy: what is too long, too many or too deep is left out. */
function bounded(value: unknown, depth = 0): Json | undefined {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string') return value.length <= MAX_STRING ? value : undefined;
  if (depth >= MAX_JSON_DEPTH || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    const out: Json[] = [];
    for (const item of value.slice(0, MAX_ITEMS)) {
      const copy = bounded(item, depth + 1);
      out.push(copy === undefined ? null : copy);
    }
    return out;
  }
  const out: JsonObject = {};
  let keys = 0;
  for (const key in value as Record<string, unknown>) {
    if (!Object.prototype.hasOwnProperty.call(value, key) || key.length > MAX_STRING) continue;
    if (++keys > MAX_ITEMS) break;
    const copy = bounded((value as Record<string, unknown>)[key], depth + 1);
    if (copy !== undefined) Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function arrayOf(value: Json | undefined): Json[] {
  return Array.isArray(value) ? value : [];
}
/** A string value as it can be stored (control characters to spaces, lone surrogates to U+FFFD), trimmed; empty → undefined. */
function text(value: Json | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = storableText(value).trim();
  return trimmed === '' ? undefined : trimmed;
}

// ---------------------------------------------------------------------------
// Redaction (RFC 9537, and the ICANN profile's "REDACTED FOR PRIVACY" placeholders)

const REDACTED = /\b(?:redacted|withheld|not disclosed|data protected)\b/i;

/** True for a redaction placeholder ("REDACTED FOR PRIVACY", "Data Protected"…): WHOIS CSV and text use them too. */
export function isRedactedValue(value: string): boolean {
  return REDACTED.test(value);
}

/** A shown value, or undefined when absent, empty or a redaction placeholder. */
function shown(value: string | undefined): string | undefined {
  return value === undefined || REDACTED.test(value) ? undefined : value;
}

// ---------------------------------------------------------------------------
// jCard (RFC 7095): ["vcard", [[name, params, type, value...], ...]]

interface Vcard {
  /** Properties by lower-case name, in order. */
  props: Map<string, { params: JsonObject; values: Json[] }[]>;
}

function vcardOf(entity: JsonObject): Vcard {
  const props: Vcard['props'] = new Map();
  const array = arrayOf(entity.vcardArray);
  if (array[0] !== 'vcard') return { props };
  for (const prop of arrayOf(array[1])) {
    if (!Array.isArray(prop) || typeof prop[0] !== 'string') continue;
    const name = prop[0].toLowerCase();
    const list = props.get(name) ?? [];
    list.push({ params: isObject(prop[1]) ? prop[1] : {}, values: prop.slice(3) });
    props.set(name, list);
  }
  return { props };
}

/** The first value of a property as text (structured values: their first non-empty part). */
function vcardText(card: Vcard, name: string): string | undefined {
  for (const prop of card.props.get(name) ?? []) {
    for (const value of prop.values) {
      const parts = Array.isArray(value) ? value.flat() : [value];
      for (const part of parts) {
        const t = text(part as Json);
        if (t !== undefined) return t;
      }
    }
  }
  return undefined;
}

/** adr (RFC 6350 §6.3.1): [pobox, ext, street, locality, region, code, country]; `cc` from RFC 8605. */
function vcardAddress(card: Vcard): { state?: string; country?: string; countryCode?: string; raw: string[] } {
  const prop = card.props.get('adr')?.[0];
  if (!prop) return { raw: [] };
  const parts = Array.isArray(prop.values[0]) ? prop.values[0] : prop.values;
  const part = (i: number) => {
    const v = parts[i];
    return text(Array.isArray(v) ? v.find((x) => typeof x === 'string' && x.trim() !== '') : v);
  };
  const region = part(4);
  const country = part(6);
  const cc = text(prop.params.cc);
  const countryCode = cc && /^[a-z]{2}$/i.test(cc) ? cc.toUpperCase() : country && /^[a-z]{2}$/i.test(country) ? country.toUpperCase() : undefined;
  const raw = [region, country, cc].filter((v): v is string => v !== undefined);
  return { state: shown(region), country: country && country.length > 2 ? shown(country) : undefined, countryCode, raw };
}

// ---------------------------------------------------------------------------
// Entities

interface Found {
  entity: JsonObject;
  roles: string[];
}

/** Every entity, breadth first (top-level ones before nested ones), nested at most MAX_ENTITY_DEPTH deep. */
function allEntities(root: JsonObject): Found[] {
  const found: Found[] = [];
  let level = arrayOf(root.entities).filter(isObject);
  for (let depth = 1; depth <= MAX_ENTITY_DEPTH && level.length > 0; depth++) {
    const next: JsonObject[] = [];
    for (const entity of level) {
      const roles = arrayOf(entity.roles)
        .map((r) => text(r)?.toLowerCase())
        .filter((r): r is string => r !== undefined);
      found.push({ entity, roles });
      next.push(...arrayOf(entity.entities).filter(isObject));
    }
    level = next;
  }
  return found;
}

function entityWithRole(entities: Found[], role: string): JsonObject | undefined {
  return entities.find((e) => e.roles.includes(role))?.entity;
}

function remarksSayRedacted(entity: JsonObject): boolean {
  return arrayOf(entity.remarks).some((r) => isObject(r) && REDACTED.test(text(r.title) ?? ''));
}

interface MappedContact {
  contact: WhoisContact | undefined;
  /** Some of its values were redaction placeholders, or its remarks say it is redacted. */
  redacted: boolean;
}

function contactOf(entity: JsonObject | undefined): MappedContact {
  if (!entity) return { contact: undefined, redacted: false };
  const card = vcardOf(entity);
  const fn = vcardText(card, 'fn');
  const org = vcardText(card, 'org');
  const email = vcardText(card, 'email');
  const address = vcardAddress(card);
  const redacted = remarksSayRedacted(entity) || [fn, org, email, ...address.raw].some((v) => v !== undefined && REDACTED.test(v));
  const contact = withoutUndefined<WhoisContact>({
    name: shown(fn),
    organization: shown(org),
    email: shown(email),
    state: address.state,
    country: address.country,
    countryCode: address.countryCode,
  });
  return { contact: Object.keys(contact).length > 0 ? contact : undefined, redacted };
}

/** RFC 9537 `redacted` members naming a registrant field ("Registrant Name", "Registrant Email"…). */
function registrantListedRedacted(root: JsonObject): boolean {
  return arrayOf(root.redacted).some((r) => {
    if (!isObject(r) || !isObject(r.name)) return false;
    const name = text(r.name.type) ?? text(r.name.description) ?? '';
    return /^registrant\b/i.test(name);
  });
}

// ---------------------------------------------------------------------------
// Events, status, name servers

function eventDate(root: JsonObject, action: string): string | undefined {
  for (const event of arrayOf(root.events)) {
    if (!isObject(event) || text(event.eventAction)?.toLowerCase() !== action) continue;
    const date = text(event.eventDate);
    if (date !== undefined && !Number.isNaN(Date.parse(date))) return date;
  }
  return undefined;
}

/** "YYYY-MM-DD HH:mm:ss UTC" (WhoisXML's createdDateNormalized). */
function normalisedDate(date: string | undefined): string | undefined {
  if (date === undefined) return undefined;
  const iso = new Date(Date.parse(date)).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** RDAP status values that RFC 8056 maps to differently named EPP ones; the rest are camel-cased. */
const EPP_STATUS: Record<string, string> = { active: 'ok', associated: 'linked' };

/** RDAP's "client transfer prohibited" → EPP's "clientTransferProhibited" (RFC 8056 §2). */
function eppStatus(status: string): string {
  const lower = status.toLowerCase().trim();
  return EPP_STATUS[lower] ?? lower.replace(/[\s_-]+([a-z])/g, (_, c: string) => c.toUpperCase());
}

function statusOf(root: JsonObject): string[] | undefined {
  const list = arrayOf(root.status)
    .map((s) => text(s))
    .filter((s): s is string => s !== undefined && s.length <= 64)
    .map(eppStatus);
  const unique = [...new Set(list)].slice(0, MAX_STATUS);
  return unique.length > 0 ? unique : undefined;
}

function nameServersOf(root: JsonObject): WhoisRecord['nameServers'] {
  const hostNames: string[] = [];
  const ips: string[] = [];
  for (const ns of arrayOf(root.nameservers)) {
    if (!isObject(ns)) continue;
    const name = text(ns.ldhName) ?? text(ns.unicodeName);
    const host = name === undefined ? undefined : checkDomain(normaliseHost(name));
    if (host?.ok && !hostNames.includes(host.value)) hostNames.push(host.value);
    const addresses = isObject(ns.ipAddresses) ? ns.ipAddresses : {};
    for (const address of [...arrayOf(addresses.v4), ...arrayOf(addresses.v6)]) {
      const ip = typeof address === 'string' ? checkIp(address) : undefined;
      if (ip?.ok && !ips.includes(ip.value)) ips.push(ip.value);
    }
  }
  if (hostNames.length === 0) return undefined;
  return ips.length > 0 ? { hostNames, ips } : { hostNames };
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

// ---------------------------------------------------------------------------

/**
 * Maps one RDAP domain object (RFC 9083 §5.3) to a WHOIS record. A domain object means the
 * domain is registered (UNAVAILABLE); a redacted registrant gives MASKED_WHOIS_DATA.
 * Throws RdapMapError when the input is not a domain object with a valid name.
 */
export function rdapToWhoisRecord(domainObject: unknown, fetchedAt: Date = new Date()): WhoisRecord {
  const root = bounded(domainObject);
  if (!isObject(root)) throw new RdapMapError('not a JSON object');
  const objectClass = text(root.objectClassName);
  if (objectClass !== undefined && objectClass.toLowerCase() !== 'domain') throw new RdapMapError(`objectClassName is ${objectClass.slice(0, 40)}, not domain`);
  if (root.errorCode !== undefined) throw new RdapMapError('an RDAP error answer, not a domain object');
  const name = text(root.ldhName) ?? text(root.unicodeName);
  if (name === undefined) throw new RdapMapError('no ldhName');
  const domain = checkDomain(name);
  if (!domain.ok) throw new RdapMapError('ldhName is not a valid domain name');

  const entities = allEntities(root);
  const registrarEntity = entityWithRole(entities, 'registrar');
  const registrarCard = registrarEntity ? vcardOf(registrarEntity) : undefined;
  const registrarName = registrarCard ? shown(vcardText(registrarCard, 'fn') ?? vcardText(registrarCard, 'org')) : undefined;

  const registrant = contactOf(entityWithRole(entities, 'registrant'));
  const administrative = contactOf(entityWithRole(entities, 'administrative'));
  const technical = contactOf(entityWithRole(entities, 'technical'));
  const masked = registrant.redacted || registrantListedRedacted(root);

  const createdDate = eventDate(root, 'registration');
  const updatedDate = eventDate(root, 'last changed');
  const expiresDate = eventDate(root, 'expiration');
  const status = statusOf(root);
  const nameServers = nameServersOf(root);
  const whoisServer = text(root.port43);
  const age = domainAgeDays(createdDate, fetchedAt);

  const registryData = withoutUndefined({
    registrarName,
    whoisServer: whoisServer && /^[a-z0-9.-]{1,253}$/i.test(whoisServer) ? whoisServer.toLowerCase() : undefined,
    createdDate,
    updatedDate,
    expiresDate,
    status,
    nameServers: nameServers ? { hostNames: nameServers.hostNames } : undefined,
  });

  return withoutUndefined<WhoisRecord>({
    domainName: domain.value,
    registrarName,
    contactEmail: registrant.contact?.email ?? administrative.contact?.email ?? technical.contact?.email,
    createdDate,
    createdDateNormalized: normalisedDate(createdDate),
    updatedDate,
    expiresDate,
    estimatedDomainAge: age ?? undefined,
    domainAvailability: 'UNAVAILABLE',
    status,
    nameServers,
    registrant: registrant.contact,
    administrativeContact: administrative.contact,
    technicalContact: technical.contact,
    registryData: Object.keys(registryData).length > 0 ? registryData : undefined,
    dataError: masked ? 'MASKED_WHOIS_DATA' : undefined,
  });
}
