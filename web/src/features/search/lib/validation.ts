/** Spec 2 §5: client-side checks of the search query, with the spec's exact messages. */
import type { SearchType } from '../api/search-api';

export const QUERY_MIN_LENGTH = 4;
export const QUERY_MAX_LENGTH = 200;
export const PHONE_MIN_LENGTH = 4;
export const PHONE_MAX_LENGTH = 15;

export const MESSAGES = {
  empty: 'Empty Query',
  short: 'Query not long enough (minimum 4 characters)',
  long: 'Query Too Long',
  ip: 'Invalid IP Address Format',
  phone: 'Invalid Phone Format',
} as const;

/** A trailing "&wildcard" or "&regex" (any case) is dropped before sending. */
export function stripModeSuffix(query: string): string {
  return query.replace(/&(?:wildcard|regex)\s*$/i, '').trim();
}

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`);
/** With wildcard on, the last two parts of an IPv4 may each be "*": 10.1.*.*, 10.1.2.*. */
const IPV4_WILDCARD = new RegExp(`^${OCTET}\\.${OCTET}\\.(?:${OCTET}|\\*)\\.(?:${OCTET}|\\*)$`);

export function isIPv4(value: string): boolean {
  return IPV4.test(value);
}

/** RFC 4291 text forms: eight groups, one "::" run, and an IPv4 tail. */
export function isIPv6(value: string): boolean {
  if (!/^[0-9a-fA-F:.]+$/.test(value) || value.length > 45) return false;
  let head = value;
  let groupsForTail = 0;
  const lastColon = value.lastIndexOf(':');
  if (value.slice(lastColon + 1).includes('.')) {
    if (!isIPv4(value.slice(lastColon + 1))) return false;
    head = value.slice(0, lastColon + 1) + '0';
    groupsForTail = 1; // an IPv4 tail fills two groups; the "0" stands for one of them
  }
  const halves = head.split('::');
  if (halves.length > 2) return false;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(halves[0] ?? '');
  const right = halves.length === 2 ? groups(halves[1] ?? '') : [];
  const all = [...left, ...right];
  if (!all.every((group) => /^[0-9a-fA-F]{1,4}$/.test(group))) return false;
  const count = all.length + groupsForTail;
  return halves.length === 2 ? count <= 7 : count === 8;
}

export function isValidIpQuery(query: string, wildcard: boolean): boolean {
  const value = query.replace(/"/g, '').trim();
  return isIPv4(value) || isIPv6(value) || (wildcard && IPV4_WILDCARD.test(value));
}

export function isValidPhoneQuery(query: string): boolean {
  return query.length >= PHONE_MIN_LENGTH && query.length <= PHONE_MAX_LENGTH && /^\d/.test(query);
}

/** Every message that applies, in the spec's order (as the server checks); empty when the query may be sent. */
export function validateSearch(query: string, type: SearchType, wildcard: boolean): string[] {
  if (query.length === 0) return [MESSAGES.empty];
  const messages: string[] = [];
  if (query.length < QUERY_MIN_LENGTH) messages.push(MESSAGES.short);
  else if (query.length > QUERY_MAX_LENGTH) messages.push(MESSAGES.long);
  if (type === 'ip_address' && !isValidIpQuery(query, wildcard)) messages.push(MESSAGES.ip);
  if (type === 'phone' && !isValidPhoneQuery(query)) messages.push(MESSAGES.phone);
  return messages;
}
