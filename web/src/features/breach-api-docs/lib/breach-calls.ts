/**
 * The calls of the Breach API v3 and Pwned Passwords page (docs/api-compatibility.md,
 * "Breach API v3 and Pwned Passwords"): the service's paths, parameters and answers over
 * our corpus. Each call's sample path is what its sample sends; each response is the
 * documented answer. server/test/dashboard/breach-api-docs-samples.test.ts runs the samples
 * against a test server and checks every answer has the documented shape. No React here.
 */
import type { RangeRequest, V3Request } from './breach-samples';

export const V3_BASE = '/api/v3';
export const RANGE_BASE = '/range';

/** One row of a parameters table: name, where it goes, its default, what it does. */
export type ParamRow = [name: string, where: 'path' | 'query' | 'header', presence: string, description: string];

interface CallText {
  /** The in-page anchor. */
  id: string;
  title: string;
  /** The route as the service documents it: /api/v3/breach/{name}. */
  route: string;
  description: string;
  params?: ParamRow[];
  /** What else the call answers, besides 200. */
  statuses?: string;
  /** The documented answer's status when it is not 200 (its body then empty). */
  responseStatus?: number;
}

export interface V3Call extends CallText, V3Request {
  kind: 'v3';
  /** The answer, as JSON. */
  response: unknown;
}

export interface RangeCall extends CallText, RangeRequest {
  kind: 'range';
  /** The answer, as text (CRLF line ends on the wire). */
  response: string;
}

export type BreachCall = V3Call | RangeCall;

export const SAMPLE_ACCOUNT = 'name@example.com';
export const SAMPLE_DOMAIN = 'example.com';
export const SAMPLE_BREACH = 'ExampleShop';
const ADDED = '2025-04-23T10:15:00Z';

/** A breach as every /api/v3 call answers it (the service's field names and order). */
export const BREACH_EXAMPLE = {
  Name: SAMPLE_BREACH,
  Title: 'Example Shop',
  Domain: 'shop.example.com',
  BreachDate: '2024-03-17',
  AddedDate: ADDED,
  ModifiedDate: ADDED,
  PwnCount: 15210,
  Description: 'Customer accounts of an online shop, sold on a forum in 2024.',
  LogoPath: '',
  DataClasses: ['Email addresses', 'Passwords', 'Usernames'],
  IsVerified: true,
  IsFabricated: false,
  IsSensitive: false,
  IsRetired: false,
  IsSpamList: false,
  IsMalware: false,
  IsSubscriptionFree: false,
  IsStealerLog: false,
};

/** The breach model's fields: type, and where the value comes from in our catalogue. */
export const BREACH_FIELDS: [field: string, type: string, meaning: string][] = [
  ['Name', 'string', 'The data well’s stable identifier (letters and digits); breach/{name} takes it.'],
  ['Title', 'string', 'The data well’s name as the dashboard shows it.'],
  ['Domain', 'string', 'The breached site’s domain; empty when the well has none.'],
  ['BreachDate', 'string', 'When the breach happened, YYYY-MM-DD (the day the well was added, when unknown).'],
  ['AddedDate', 'string', 'When the well was first published here, ISO 8601 in UTC.'],
  ['ModifiedDate', 'string', 'When the well last changed (new records, a corrected field).'],
  ['PwnCount', 'integer', 'Records of the well in our data, removed and opted-out entries excluded.'],
  ['Description', 'string', 'The well’s description: our plain text, HTML-escaped, so a client that renders it as HTML shows the text.'],
  ['LogoPath', 'string', 'The well’s logo as an absolute URL on this server; empty when it has none.'],
  ['DataClasses', 'string[]', 'The kinds of data the well holds, in the service’s names (Email addresses, Passwords, IP addresses…), sorted.'],
  ['IsVerified', 'boolean', 'The breach is confirmed.'],
  ['IsFabricated', 'boolean', 'The data is known to be made up.'],
  ['IsSensitive', 'boolean', 'Never returned by breachedaccount; the domain calls show it to the owner of a verified domain.'],
  ['IsRetired', 'boolean', 'The well’s data is gone: searches no longer find it.'],
  ['IsSpamList', 'boolean', 'A spam list: addresses without other data. breaches filters on it.'],
  ['IsMalware', 'boolean', 'Collected by malware.'],
  ['IsSubscriptionFree', 'boolean', 'Searchable without a subscription (always false here).'],
  ['IsStealerLog', 'boolean', 'Ingested from stealer-log lines: the stealerlogs calls search it.'],
];

/** Statuses under /api/v3. Every one but 404 has a `{"statusCode": N, "message": "..."}` body. */
export const V3_ERRORS: [status: string, meaning: string][] = [
  ['400', 'The account, email or domain is empty or malformed, or a parameter has a value it does not take.'],
  ['401', 'hibp-api-key is missing or not a current key, or its account has no search subscription.'],
  ['403', 'A search without a user-agent header; or the domain is not verified for your account.'],
  ['404', 'Nothing found (the account is in none of our breaches), or no breach has that name. The body is empty, as the service’s.'],
  ['429', 'Too many requests, or your daily search limit is reached: wait for the whole seconds of the retry-after header.'],
];

const RANGE_LINES = [
  '2DC183F740EE76F27B78EB39C8AD972A757:3',
  '2DC5CB3F0F3D24F4E9B4C1A7BBE3C8EBBA8:0',
  '2DE0B7F1F6C2E4C2F6B4B9C0A4C3B6E1D5A:1',
];
const NTLM_LINES = ['F75EE54E06B06A5907AF13CEF42:3', 'F7A0D4C3B2E1F0A9B8C7D6E5F40:0'];

const BREACH_PARAM: ParamRow = ['name', 'path', 'required', 'A breach’s Name (any case).'];
const ACCOUNT_PARAM: ParamRow = ['account', 'path', 'required', 'An email address, or without an @ a username; trimmed, any case, URL-encoded or not.'];
const DOMAIN_PARAM: ParamRow = ['domain', 'path', 'required', 'A domain verified for your account, or a subdomain of one.'];

export const RANGE_CALLS: RangeCall[] = [
  {
    kind: 'range',
    id: 'range-sha1',
    title: 'Check a Password',
    route: `GET ${RANGE_BASE}/{prefix}`,
    mode: 'sha1',
    description:
      'Send the first 5 characters of the password’s SHA-1 (any case); the answer lists every SHA-1 with that prefix known in our data, one line each: the other 35 characters in upper case, a colon, how many records hold it. Compare locally: the password and its full hash never leave your machine. A prefix nothing matches answers 200 with an empty body.',
    params: [
      ['prefix', 'path', 'required', '5 hexadecimal characters.'],
      ['mode', 'query', 'sha1', 'sha1, or ntlm for NTLM hashes.'],
      ['Add-Padding', 'header', 'false', 'true adds lines of random suffixes with count 0: at least 800 lines, plus a random 0 to 200, so the answer’s size says little about the prefix.'],
    ],
    statuses: '400 (plain text) for a prefix that is not 5 hexadecimal characters or a mode other than sha1 or ntlm; 429 past the per-address limit, with Retry-After.',
    response: RANGE_LINES.join('\n'),
  },
  {
    kind: 'range',
    id: 'range-ntlm',
    title: 'Check an NTLM Hash',
    route: `GET ${RANGE_BASE}/{prefix}?mode=ntlm`,
    mode: 'ntlm',
    description:
      'The same over NTLM hashes (MD4 of the password in UTF-16LE, 32 hexadecimal characters), as a Windows domain stores them: the prefix is 5 characters, each line’s suffix the other 27.',
    response: NTLM_LINES.join('\n'),
  },
];

const CATALOGUE_CALLS: V3Call[] = [
  {
    kind: 'v3',
    id: 'v3-breaches',
    title: 'All Breaches',
    route: `GET ${V3_BASE}/breaches`,
    path: `${V3_BASE}/breaches`,
    keyed: false,
    description: 'Every breach of the catalogue, by Name (IsSensitive flags the sensitive ones). No key needed.',
    params: [
      ['domain', 'query', 'optional', 'Only the breaches of this domain (any case).'],
      ['isSpamList', 'query', 'optional', 'true or false: only spam lists, or none.'],
    ],
    response: [BREACH_EXAMPLE],
  },
  {
    kind: 'v3',
    id: 'v3-breach',
    title: 'A Single Breach',
    route: `GET ${V3_BASE}/breach/{name}`,
    path: `${V3_BASE}/breach/${SAMPLE_BREACH}`,
    keyed: false,
    description: 'One breach by its Name. No key needed.',
    params: [BREACH_PARAM],
    statuses: '404 (empty body) for a name that is not in the catalogue.',
    response: BREACH_EXAMPLE,
  },
  {
    kind: 'v3',
    id: 'v3-latestbreach',
    title: 'Latest Breach',
    route: `GET ${V3_BASE}/latestbreach`,
    path: `${V3_BASE}/latestbreach`,
    keyed: false,
    description: 'The breach added most recently. No key needed.',
    response: BREACH_EXAMPLE,
  },
  {
    kind: 'v3',
    id: 'v3-dataclasses',
    title: 'Data Classes',
    route: `GET ${V3_BASE}/dataclasses`,
    path: `${V3_BASE}/dataclasses`,
    keyed: false,
    description: 'Every data class a breach may list, sorted. No key needed.',
    response: [
      'Cryptocurrency wallet addresses',
      'Dates of birth',
      'Email addresses',
      'Employers',
      'IP addresses',
      'Names',
      'Passwords',
      'Phone numbers',
      'Physical addresses',
      'Social media profiles',
      'User website URLs',
      'Usernames',
      'Vehicle details',
    ],
  },
];

const SEARCH_CALLS: V3Call[] = [
  {
    kind: 'v3',
    id: 'v3-breachedaccount',
    title: 'Breaches of an Account',
    route: `GET ${V3_BASE}/breachedaccount/{account}`,
    path: `${V3_BASE}/breachedaccount/${SAMPLE_ACCOUNT}?truncateResponse=false`,
    keyed: true,
    notFound: '[]',
    description:
      'The breaches holding an email address or username, by Name. By default only their names ([{"Name": "ExampleShop"}]); with truncateResponse=false the whole breach model. Sensitive and retired breaches are never listed. Booleans are read in any case.',
    params: [
      ACCOUNT_PARAM,
      ['truncateResponse', 'query', 'true', 'false: the whole breach model.'],
      ['domain', 'query', 'optional', 'Only the breaches of this domain (any case).'],
      ['includeUnverified', 'query', 'true', 'false: leave out the breaches flagged unverified.'],
    ],
    statuses: '404 (empty body) when no breach holds the account; 400 for an empty or malformed account.',
    response: [BREACH_EXAMPLE],
  },
  {
    kind: 'v3',
    id: 'v3-breacheddomain',
    title: 'Breaches of a Domain',
    route: `GET ${V3_BASE}/breacheddomain/{domain}`,
    path: `${V3_BASE}/breacheddomain/${SAMPLE_DOMAIN}`,
    keyed: true,
    notFound: '{}',
    description:
      'For a domain verified for your account (on the monitoring domains screen): each alias (the part of an address before the @) found in our data, with the names of the breaches holding it, sensitive ones included.',
    params: [DOMAIN_PARAM],
    statuses: '403 for a domain that is not verified for your account; 404 (empty body) when no breach holds an address of it.',
    response: { 'j.doe': ['ExampleForum', SAMPLE_BREACH], name: [SAMPLE_BREACH] },
  },
  {
    kind: 'v3',
    id: 'v3-subscribeddomains',
    title: 'Subscribed Domains',
    route: `GET ${V3_BASE}/subscribeddomains`,
    path: `${V3_BASE}/subscribeddomains`,
    keyed: true,
    description:
      'The domains verified for your account, each with how many of its addresses our data holds (with and without spam lists), and when your search subscription ends. The first 20 domains by name are counted; past them the counts are null. We keep no count at renewal: that field is null.',
    response: [
      {
        DomainName: SAMPLE_DOMAIN,
        PwnCount: 42,
        PwnCountExcludingSpamLists: 40,
        PwnCountExcludingSpamListsAtLastSubscriptionRenewal: null,
        NextSubscriptionRenewal: '2025-05-23T10:15:00Z',
      },
    ],
  },
  {
    kind: 'v3',
    id: 'v3-stealerlogsbyemail',
    title: 'Stealer Logs of an Email',
    route: `GET ${V3_BASE}/stealerlogsbyemail/{email}`,
    path: `${V3_BASE}/stealerlogsbyemail/${SAMPLE_ACCOUNT}`,
    keyed: true,
    notFound: '[]',
    description: 'The websites (host names, sorted) an address’s credentials were captured on by info-stealing malware, from stealer-log wells. The address’s domain must be verified for your account.',
    params: [['email', 'path', 'required', 'An email address on a domain verified for your account.']],
    statuses: '403 when its domain is not verified for your account; 404 (empty body) when no stealer log holds it.',
    response: ['mail.example.org', 'shop.example.com'],
  },
  {
    kind: 'v3',
    id: 'v3-stealerlogsbywebsitedomain',
    title: 'Stealer Logs of a Website',
    route: `GET ${V3_BASE}/stealerlogsbywebsitedomain/{domain}`,
    path: `${V3_BASE}/stealerlogsbywebsitedomain/${SAMPLE_DOMAIN}`,
    keyed: true,
    notFound: '[]',
    description: 'The email addresses (lower case, sorted) whose credentials stealer logs captured on a website of a domain verified for your account, or under it.',
    params: [DOMAIN_PARAM],
    statuses: '403 for a domain that is not verified for your account; 404 (empty body) when no stealer log holds it.',
    response: ['j.doe@example.net', SAMPLE_ACCOUNT],
  },
  {
    kind: 'v3',
    id: 'v3-stealerlogsbyemaildomain',
    title: 'Stealer Logs of an Email Domain',
    route: `GET ${V3_BASE}/stealerlogsbyemaildomain/{domain}`,
    path: `${V3_BASE}/stealerlogsbyemaildomain/${SAMPLE_DOMAIN}`,
    keyed: true,
    notFound: '{}',
    description: 'For an email domain verified for your account: each alias captured by stealer logs, with the websites (host names) it was captured on.',
    params: [DOMAIN_PARAM],
    statuses: '403 for a domain that is not verified for your account; 404 (empty body) when no stealer log holds an address of it.',
    response: { 'j.doe': ['mail.example.org', 'shop.example.com'], name: ['shop.example.com'] },
  },
  {
    kind: 'v3',
    id: 'v3-pasteaccount',
    title: 'Pastes of an Account',
    route: `GET ${V3_BASE}/pasteaccount/{account}`,
    path: `${V3_BASE}/pasteaccount/${SAMPLE_ACCOUNT}`,
    keyed: true,
    notFound: '[]',
    description: 'We collect no pastes: this call always answers 404, which clients read as “no paste”. It is here so they keep working; it counts as a search.',
    params: [ACCOUNT_PARAM],
    statuses: 'Always 404 for a well-formed account; 400 for a malformed one.',
    responseStatus: 404,
    response: null,
  },
  {
    kind: 'v3',
    id: 'v3-subscription-status',
    title: 'Subscription Status',
    route: `GET ${V3_BASE}/subscription/status`,
    path: `${V3_BASE}/subscription/status`,
    keyed: true,
    description:
      'Your search plan: its name and end, the requests per minute your key may make (Rpm), how many records of a domain one domain search reads, and whether the stealer-log calls are included.',
    response: {
      SubscriptionName: 'Search',
      Description:
        "Keyed searches at up to 600 requests a minute (bursts of 10), counted as searches without credits; domain and stealer-log searches of the account's verified domains.",
      SubscribedUntil: '2025-05-23T10:15:00Z',
      Rpm: 600,
      DomainSearchMaxBreachedAccounts: 10000,
      IncludesStealerLogs: true,
    },
  },
];

export const V3_GROUPS: { id: string; title: string; intro: string; calls: V3Call[] }[] = [
  {
    id: 'catalogue',
    title: 'Breaches',
    intro:
      'The catalogue of breaches (our data wells), public as the service’s: no key needed. Limited per client address; answers may be cached for a minute.',
    calls: CATALOGUE_CALLS,
  },
  {
    id: 'searches',
    title: 'Searches',
    intro:
      'With your key in hibp-api-key. Each call counts as a search toward your daily limit and costs no credits: the answers name breaches and domains, never a record’s values.',
    calls: SEARCH_CALLS,
  },
];

export const V3_CALLS: V3Call[] = V3_GROUPS.flatMap((group) => group.calls);
export const BREACH_CALLS: BreachCall[] = [...RANGE_CALLS, ...V3_CALLS];
