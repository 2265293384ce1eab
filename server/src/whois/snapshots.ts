/**
 * WHOIS snapshots: how a WHOIS record is kept in the local store (migration 0006
 * whois_snapshots), by the ingest command and by every live or WhoisXML answer.
 * One row per domain and content; the newest by last observation is the current one.
 */
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { WhoisContact, WhoisHistoryRecord, WhoisRecord } from '../common/whois-rules';
import type { Database } from '../db/schema';
import * as repo from './snapshots-repository';
import type { SnapshotRow } from './snapshots-repository';

export type { SnapshotRow } from './snapshots-repository';

const CONTACT_KEYS = ['registrant', 'administrativeContact', 'technicalContact'] as const;

function contactText(contact: WhoisContact | undefined): string[] {
  if (!contact) return [];
  return [contact.name, contact.organization, contact.email, contact.state, contact.country, contact.countryCode].filter(
    (v): v is string => typeof v === 'string' && v !== '',
  );
}

/**
 * The text reverse WHOIS terms are matched in (substring, case-insensitive): registrar,
 * contact email, every contact's name, organisation, email, state and country, and the
 * name servers. Not the domain name itself: reverse WHOIS finds domains by who holds them.
 */
export function searchTextOf(record: WhoisRecord): string {
  const parts: string[] = [];
  if (record.registrarName) parts.push(record.registrarName);
  if (record.contactEmail) parts.push(record.contactEmail);
  for (const key of CONTACT_KEYS) parts.push(...contactText(record[key]));
  for (const host of record.nameServers?.hostNames ?? []) parts.push(host);
  return parts.join('\n').toLowerCase();
}

/** Canonical JSON (sorted keys) so equal content hashes equal whatever the key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Hash of a record's content, without what changes with time of observation (its age). */
export function contentHashOf(record: WhoisRecord): Buffer {
  const { estimatedDomainAge: _age, ...content } = record;
  return createHash('sha256').update(canonical(content)).digest();
}

function dateOrNull(text: string | undefined): Date | null {
  if (!text) return null;
  const ms = Date.parse(text.replace(/ UTC$/, 'Z').replace(/^(\d{4}-\d\d-\d\d) /, '$1T'));
  return Number.isNaN(ms) ? null : new Date(ms);
}

/** The row for a record; `domain` lower-case ASCII. */
export function snapshotRow(record: WhoisRecord, source: string, observedAt: Date): SnapshotRow {
  const { estimatedDomainAge: _age, ...stored } = record;
  return {
    domain: record.domainName.toLowerCase(),
    observed_at: observedAt,
    last_observed_at: observedAt,
    source,
    record: JSON.stringify(stored),
    registrar_name: record.registrarName ?? null,
    created_date: dateOrNull(record.createdDateNormalized ?? record.createdDate),
    updated_date: dateOrNull(record.updatedDate),
    expires_date: dateOrNull(record.expiresDate),
    search_text: searchTextOf(record),
    content_sha256: contentHashOf(record),
  };
}

/**
 * Keeps one record: a new row, or, when the same content is already kept, a wider
 * observation window. Then the domain's current snapshot is brought up to date.
 */
export async function recordSnapshot(db: Kysely<Database>, record: WhoisRecord, source: string, observedAt: Date = new Date()): Promise<void> {
  const row = snapshotRow(record, source, observedAt);
  await db.transaction().execute(async (trx) => {
    await repo.upsertSnapshot(trx, row);
    await repo.refreshCurrent(trx, [row.domain]);
  });
}

function historyContact(contact: WhoisContact | undefined): WhoisContact | undefined {
  if (!contact) return undefined;
  const { name, organization, state, country, countryCode, email } = contact;
  return { name, organization, state, country, countryCode, email };
}

/** A kept record as a history record, observed from `firstSeen` to `lastSeen`. */
export function historyRecordOf(record: WhoisRecord, firstSeen: Date, lastSeen: Date): WhoisHistoryRecord {
  const iso = (text: string | undefined) => dateOrNull(text)?.toISOString();
  return {
    domainName: record.domainName,
    registrarName: record.registrarName,
    whoisServer: record.registryData?.whoisServer,
    createdDateRaw: record.createdDate,
    updatedDateRaw: record.updatedDate,
    expiresDateRaw: record.expiresDate,
    createdDateISO8601: iso(record.createdDateNormalized ?? record.createdDate),
    updatedDateISO8601: iso(record.updatedDate),
    expiresDateISO8601: iso(record.expiresDate),
    audit: { createdDate: firstSeen.toISOString(), updatedDate: lastSeen.toISOString() },
    nameServers: record.nameServers?.hostNames,
    status: record.status,
    registrantContact: historyContact(record.registrant),
    administrativeContact: historyContact(record.administrativeContact),
    technicalContact: historyContact(record.technicalContact),
  };
}
