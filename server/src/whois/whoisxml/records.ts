/** WhoisXML's records (WHOIS, history, reverse lookups, subdomains) → the wire shapes of common/whois-rules.ts. */
import {
  checkDomain,
  type DomainAvailability,
  type LookupRow,
  type SubdomainAnswer,
  type WhoisDataError,
  type WhoisHistoryRecord,
  type WhoisRecord,
} from '../../common/whois-rules';
import { contact, defined, hostNames, int, ips, nonEmpty, obj, str, strings, type Obj } from './read';

const AVAILABILITY: readonly DomainAvailability[] = ['AVAILABLE', 'UNAVAILABLE', 'UNDETERMINED'];
const DATA_ERRORS: readonly WhoisDataError[] = ['MISSING_WHOIS_DATA', 'MASKED_WHOIS_DATA', 'IN_COMPLETE_DATA'];
const NORMALISED_DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/;

/** WhoisXML's `WhoisRecord` → ours; the registry's values stand in where the top level has none. */
export function whoisRecordOf(v: unknown, domain: string): WhoisRecord {
  const r = obj(v) ?? {};
  const registry = obj(r.registryData) ?? {};
  const pick = (key: string) => str(r[key]) ?? str(registry[key]);
  const dataError = DATA_ERRORS.find((e) => e === r.dataError);
  const registrarName = pick('registrarName');
  const createdDate = pick('createdDate');
  const normalised = [r.createdDateNormalized, registry.createdDateNormalized].find((d): d is string => typeof d === 'string' && NORMALISED_DATE.test(d));
  const nsOf = (o: Obj) => obj(o.nameServers);
  const topNs = nsOf(r);
  const registryNs = nsOf(registry);
  const names = hostNames(topNs?.hostNames) ?? hostNames(registryNs?.hostNames);
  const nsIps = ips(topNs?.ips);
  const status = strings(r.status) ?? strings(registry.status);
  const availability =
    AVAILABILITY.find((a) => a === r.domainAvailability) ??
    (dataError === 'MISSING_WHOIS_DATA' ? 'AVAILABLE' : registrarName || createdDate || names ? 'UNAVAILABLE' : 'UNDETERMINED');
  const registryData = nonEmpty({
    registrarName: str(registry.registrarName),
    whoisServer: str(registry.whoisServer, 253),
    createdDate: str(registry.createdDate),
    updatedDate: str(registry.updatedDate),
    expiresDate: str(registry.expiresDate),
    status: strings(registry.status),
    nameServers: hostNames(registryNs?.hostNames) ? { hostNames: hostNames(registryNs?.hostNames)! } : undefined,
  });
  return defined<WhoisRecord>({
    domainName: domain,
    registrarName,
    contactEmail: str(r.contactEmail, 254),
    createdDate,
    createdDateNormalized: normalised,
    updatedDate: pick('updatedDate'),
    expiresDate: pick('expiresDate'),
    estimatedDomainAge: int(r.estimatedDomainAge),
    domainAvailability: availability,
    status,
    ips: ips(r.ips),
    nameServers: names ? (nsIps ? { hostNames: names, ips: nsIps } : { hostNames: names }) : undefined,
    registrant: contact(r.registrant) ?? contact(registry.registrant),
    administrativeContact: contact(r.administrativeContact) ?? contact(registry.administrativeContact),
    technicalContact: contact(r.technicalContact) ?? contact(registry.technicalContact),
    registryData,
    dataError,
  });
}

export function historyRecordOf(v: unknown, domain: string): WhoisHistoryRecord | undefined {
  const r = obj(v);
  if (!r) return undefined;
  const audit = obj(r.audit);
  const auditCreated = str(audit?.createdDate, 64);
  const auditUpdated = str(audit?.updatedDate, 64);
  const name = checkDomain(str(r.domainName, 253) ?? '');
  return defined<WhoisHistoryRecord>({
    domainName: name.ok ? name.value : domain,
    registrarName: str(r.registrarName),
    whoisServer: str(r.whoisServer, 253),
    createdDateRaw: str(r.createdDateRaw),
    updatedDateRaw: str(r.updatedDateRaw),
    expiresDateRaw: str(r.expiresDateRaw),
    createdDateISO8601: str(r.createdDateISO8601, 64),
    updatedDateISO8601: str(r.updatedDateISO8601, 64),
    expiresDateISO8601: str(r.expiresDateISO8601, 64),
    audit: auditCreated && auditUpdated ? { createdDate: auditCreated, updatedDate: auditUpdated } : undefined,
    nameServers: hostNames(r.nameServers),
    status: strings(r.status),
    registrantContact: contact(r.registrantContact),
    administrativeContact: contact(r.administrativeContact),
    technicalContact: contact(r.technicalContact),
  });
}

/** When a history record was observed (its audit dates, else its update or creation), for ordering. */
export function observedAt(r: WhoisHistoryRecord): number {
  for (const d of [r.audit?.updatedDate, r.audit?.createdDate, r.updatedDateISO8601, r.createdDateISO8601]) {
    const ms = d === undefined ? NaN : Date.parse(d);
    if (!Number.isNaN(ms)) return ms;
  }
  return NaN;
}

export function lookupRowOf(v: unknown): LookupRow | undefined {
  const r = obj(v);
  const name = str(r?.name, 253);
  const first = int(r?.first_seen);
  const last = int(r?.last_visit);
  return name !== undefined && first !== undefined && last !== undefined ? { name: name.toLowerCase(), first_seen: first, last_visit: last } : undefined;
}

export function subdomainRecordOf(v: unknown): SubdomainAnswer['result']['records'][number] | undefined {
  const r = obj(v);
  const domain = str(r?.domain, 253);
  const firstSeen = int(r?.firstSeen);
  const lastSeen = int(r?.lastSeen);
  return domain !== undefined && firstSeen !== undefined && lastSeen !== undefined ? { domain: domain.toLowerCase(), firstSeen, lastSeen } : undefined;
}
