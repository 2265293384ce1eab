/**
 * The public API v2's WHOIS calls as documented on /documentation/api (contract:
 * docs/whois.md "Calls"; answers are WhoisXML API's shapes, wrapped with the
 * source and the balance). Method, path and fields come from the route schemas
 * (lib/api-reference.ts). Each call's body is the sample's body; each response is the
 * documented answer. server/test/dashboard/whois-docs-samples.test.ts runs the samples made from these
 * against a server and checks every answer against the documented one (it imports this file,
 * hence the rules by a relative path rather than @common). No React here.
 */
import {
  HISTORY_COST,
  REVERSE_WHOIS_MAX_RESULTS,
  WHOIS_MESSAGES,
  v2WhoisData,
  type V2WhoisType,
  type WhoisRecord,
} from '@common/whois-rules';
import type { DocCall } from '../../../lib/api-samples';
import { documentedCall, type FieldPick } from '../../../lib/api-reference';

/** The values the samples look up: reserved names and a documentation address (RFC 2606, RFC 5737). */
export const SAMPLE_DOMAIN = 'example.com';
export const SAMPLE_IP = '203.0.113.10';
export const SAMPLE_MX = 'mail.example.com';
export const SAMPLE_NS = 'ns1.example.com';
export const SAMPLE_TERM = 'example corp';

/** A subdomain scan answers every name at once, up to WhoisXML's cap. */
const SUBDOMAIN_ROWS = 10_000;
const FETCHED_AT = '2025-04-23T10:15:00.000Z';
const answer = (searchType: V2WhoisType, data: unknown, remaining: number) => ({
  search_type: searchType,
  data,
  source: 'local',
  fetched_at: FETCHED_AT,
  remaining_credits: remaining,
});

const CONTACT = { organization: 'Example Corp', state: 'CA', country: 'UNITED STATES', countryCode: 'US' };
const HISTORY_CONTACT = { name: 'Domain Administrator', organization: 'Example Corp', state: 'CA', country: 'UNITED STATES', countryCode: 'US', email: 'hostmaster@example.com' };

/** A WHOIS record as the API answers it. */
export const WHOIS_RECORD_EXAMPLE = {
  domainName: SAMPLE_DOMAIN,
  registrarName: 'Example Registrar, Inc.',
  contactEmail: 'hostmaster@example.com',
  createdDate: '1995-08-14T04:00:00Z',
  createdDateNormalized: '1995-08-14 04:00:00 UTC',
  updatedDate: '2024-08-14T07:01:34Z',
  expiresDate: '2025-08-13T04:00:00Z',
  estimatedDomainAge: 10845,
  domainAvailability: 'UNAVAILABLE',
  status: ['clientDeleteProhibited', 'clientTransferProhibited'],
  ips: [SAMPLE_IP],
  nameServers: { hostNames: [SAMPLE_NS, 'ns2.example.com'], ips: ['203.0.113.53'] },
  registrant: CONTACT,
  administrativeContact: CONTACT,
  technicalContact: CONTACT,
  registryData: {
    registrarName: 'Example Registrar, Inc.',
    whoisServer: 'whois.example-registrar.test',
    createdDate: '1995-08-14T04:00:00Z',
    updatedDate: '2024-08-14T07:01:34Z',
    expiresDate: '2025-08-13T04:00:00Z',
    status: ['clientDeleteProhibited', 'clientTransferProhibited'],
    nameServers: { hostNames: [SAMPLE_NS, 'ns2.example.com'] },
  },
};

const HISTORY_RECORD = {
  domainName: SAMPLE_DOMAIN,
  registrarName: 'Example Registrar, Inc.',
  whoisServer: 'whois.example-registrar.test',
  createdDateRaw: '1995-08-14T04:00:00Z',
  updatedDateRaw: '2024-08-14T07:01:34Z',
  expiresDateRaw: '2025-08-13T04:00:00Z',
  createdDateISO8601: '1995-08-14T04:00:00.000Z',
  updatedDateISO8601: '2024-08-14T07:01:34.000Z',
  expiresDateISO8601: '2025-08-13T04:00:00.000Z',
  audit: { createdDate: '2024-08-15T00:00:00.000Z', updatedDate: '2025-04-23T10:15:00.000Z' },
  nameServers: [SAMPLE_NS, 'ns2.example.com'],
  status: ['clientDeleteProhibited', 'clientTransferProhibited'],
  registrantContact: HISTORY_CONTACT,
  administrativeContact: HISTORY_CONTACT,
  technicalContact: HISTORY_CONTACT,
};

const ROWS = [
  { name: SAMPLE_DOMAIN, first_seen: 1651363200, last_visit: 1745400000 },
  { name: 'example.net', first_seen: 1659312000, last_visit: 1745310000 },
];

/**
 * One call serves every search_type: each documents the fields its type reads, the value
 * field required (the schema, shared by all types, cannot say which).
 */
const TYPE_FIELD: FieldPick = ['search_type', 'required'];
const DOMAIN_FIELD: FieldPick = ['domain', 'required'];
const FROM_FIELD = 'from';

/** One call per search_type, then the balance. */
export const WHOIS_CALLS: DocCall[] = [
  documentedCall('v2WhoisSearch', {
    id: 'whois-lookup',
    title: 'WHOIS',
    body: { search_type: 'whois', domain: SAMPLE_DOMAIN },
    description:
      'The WHOIS record of a domain, under data.WhoisRecord as WhoisXML-style clients read it (status is one space-separated string): registrar, dates, age in days, status, addresses, name servers, contacts and the registry’s own data. 1 credit. A record the registry redacts or gives in part carries dataError MASKED_WHOIS_DATA or IN_COMPLETE_DATA. A domain without a WHOIS record carries dataError MISSING_WHOIS_DATA and costs nothing; its domainAvailability says why: AVAILABLE, its registry answered that it is not registered; UNDETERMINED, no source knows it (it may not be registered); UNAVAILABLE, registered but without published WHOIS data.',
    fields: [TYPE_FIELD, DOMAIN_FIELD],
    response: answer('whois', v2WhoisData('whois', WHOIS_RECORD_EXAMPLE as WhoisRecord), 99),
  }),
  documentedCall('v2WhoisSearch', {
    id: 'whois-history',
    title: 'WHOIS History',
    body: { search_type: 'whois-history', domain: SAMPLE_DOMAIN },
    description: `Every WHOIS record kept for a domain over the last 10 years, each with when it was first and last seen (audit). ${HISTORY_COST} credits; refused with 403 below ${HISTORY_COST}.`,
    fields: [TYPE_FIELD, DOMAIN_FIELD],
    response: answer('whois-history', { recordsCount: 1, records: [HISTORY_RECORD] }, 74),
  }),
  documentedCall('v2WhoisSearch', {
    id: 'whois-reverse',
    title: 'Reverse WHOIS',
    body: { search_type: 'reverse-whois', include: [SAMPLE_TERM], exclude: ['privacy'], reverse_type: 'current' },
    description: `Domains whose WHOIS records mention every include term and none of the exclude terms (names, organisations, emails, states, countries, name servers; any case). Up to ${REVERSE_WHOIS_MAX_RESULTS.toLocaleString('en-US')} domains in one answer, 1 credit; when more match, nextPageSearchAfter is set: send it as search_after for the next ones.`,
    fields: [TYPE_FIELD, ['include', 'one side required'], 'exclude', ['reverse_type', 'current'], 'search_after'],
    response: answer('reverse-whois', { domainsCount: 2, domainsList: [SAMPLE_DOMAIN, 'example.net'], nextPageSearchAfter: null }, 98),
  }),
  documentedCall('v2WhoisSearch', {
    id: 'whois-reverse-ip',
    title: 'Reverse IP',
    body: { search_type: 'reverse-ip', ip_address: SAMPLE_IP },
    description: 'Domains seen resolving to an IPv4 or IPv6 address, with when each was first and last seen (seconds since 1970). 1 credit.',
    fields: [TYPE_FIELD, ['ip_address', 'required'], FROM_FIELD],
    response: answer('reverse-ip', { current_page: '0', size: 2, result: ROWS }, 97),
  }),
  documentedCall('v2WhoisSearch', {
    id: 'whois-reverse-mx',
    title: 'Reverse MX',
    body: { search_type: 'reverse-mx', mx_address: SAMPLE_MX },
    description: 'Domains whose mail is handled by a mail server. 1 credit.',
    fields: [TYPE_FIELD, ['mx_address', 'required'], FROM_FIELD],
    response: answer('reverse-mx', { current_page: '0', size: 2, result: ROWS }, 96),
  }),
  documentedCall('v2WhoisSearch', {
    id: 'whois-reverse-ns',
    title: 'Reverse NS',
    body: { search_type: 'reverse-ns', ns_address: SAMPLE_NS },
    description: 'Domains served by a name server. 1 credit.',
    fields: [TYPE_FIELD, ['ns_address', 'required'], FROM_FIELD],
    response: answer('reverse-ns', { current_page: '0', size: 2, result: ROWS }, 95),
  }),
  documentedCall('v2WhoisSearch', {
    id: 'whois-subdomains',
    title: 'Subdomain Scan',
    body: { search_type: 'subdomain-scan', domain: SAMPLE_DOMAIN },
    description: `Host names seen under a domain, up to ${SUBDOMAIN_ROWS.toLocaleString('en-US')} in one answer, with when each was first and last seen (seconds since 1970). 1 credit.`,
    fields: [TYPE_FIELD, DOMAIN_FIELD],
    response: answer(
      'subdomain-scan',
      {
        search: SAMPLE_DOMAIN,
        result: {
          count: 2,
          records: [
            { domain: `mail.${SAMPLE_DOMAIN}`, firstSeen: 1651363200, lastSeen: 1745400000 },
            { domain: `www.${SAMPLE_DOMAIN}`, firstSeen: 1651363200, lastSeen: 1745400000 },
          ],
        },
      },
      94,
    ),
  }),
];

export const WHOIS_CREDITS_CALL: DocCall = documentedCall('v2WhoisCredits', {
  id: 'whois-credits-call',
  title: 'Credit Balance',
  description: 'Your WHOIS credit balance. Free.',
  response: { whois_credits: 94 },
});

/** WHOIS errors: the status, what it means, and the `error` text where it is always the same. */
export const WHOIS_ERRORS: [status: string, meaning: string, error: string | null][] = [
  ['400', `A missing or malformed value; the text says which, e.g. "${WHOIS_MESSAGES.invalidDomain}" or "${WHOIS_MESSAGES.emptyReverseWhois}".`, null],
  ['401', 'The key header is missing or not a current key.', null],
  ['403', 'Insufficient credits: your WHOIS credits are below the call’s cost. Nothing was taken.', WHOIS_MESSAGES.creditsRequired],
  ['429', 'Too many requests: wait for the seconds given in the Retry-After header.', null],
  ['503', 'No source could answer right now; no credits were taken.', WHOIS_MESSAGES.unavailable],
];
