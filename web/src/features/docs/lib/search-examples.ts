/**
 * The search guide's examples, in one place: the page renders them with their Live Example
 * links, and server/test/dashboard/docs-examples.test.ts runs every query through the dashboard's
 * rules and the engine's parser (and searches a fixture with each), so a guide example can
 * never teach a query the engine refuses. Plain data: no React, no DOM, no path aliases.
 */

/**
 * The engine's searchable fields (engine/index.ts FIELD_NAMES), with what each holds;
 * the test checks the names match the engine's, in order.
 */
export const SEARCHABLE_FIELDS: { name: string; holds: string }[] = [
  { name: 'email', holds: 'Email addresses, matched without regard to case.' },
  { name: 'username', holds: 'User names and handles.' },
  { name: 'password', holds: 'Plaintext passwords, as leaked.' },
  { name: 'hashed_password', holds: 'Password hashes (MD5, SHA-1, SHA-256, bcrypt…), in lower-case hex where hex.' },
  { name: 'ip_address', holds: 'IPv4 and IPv6 addresses (IPv6 in its canonical form).' },
  { name: 'name', holds: 'Full names.' },
  { name: 'dob', holds: 'Dates of birth.' },
  { name: 'license_plate', holds: 'Vehicle licence plates.' },
  { name: 'vin', holds: 'Vehicle identification numbers.' },
  { name: 'address', holds: 'Postal addresses.' },
  { name: 'phone', holds: 'Phone numbers, matched by their digits only.' },
  { name: 'company', holds: 'Employers and organisations.' },
  { name: 'url', holds: 'Web addresses found with the record.' },
  { name: 'social', holds: 'Social media profiles.' },
  { name: 'cryptocurrency_address', holds: 'Cryptocurrency wallet addresses.' },
  { name: 'domain', holds: 'Domains, including the domain of every email address.' },
];

/** A search tab value of the search screen (server/src/common/search-rules.ts SEARCH_TYPES). */
export type ExampleType = 'all' | 'email' | 'username' | 'password' | 'hashed_password' | 'ip_address' | 'name' | 'address' | 'phone' | 'vin' | 'domain_scan';

export interface SearchExample {
  title: string;
  /** As typed into the search box: a trailing &wildcard / &regex turns its mode on. */
  query: string;
  /** The search tab; 'all' when absent. */
  type?: ExampleType;
  note: string;
}

export interface GuideSection {
  id: string;
  title: string;
  intro: string[];
  examples: SearchExample[];
}

export const GUIDE_SECTIONS: GuideSection[] = [
  {
    id: 'ip',
    title: 'IP Address',
    intro: [
      'Search an IPv4 or IPv6 address with the ip_address field, or type the address alone on the IP Address tab.',
      'With wildcards on, the last two parts of an IPv4 address may be *, to cover a whole range.',
    ],
    examples: [
      { title: 'One IPv4 address', query: 'ip_address:10.1.2.3', note: 'Records holding exactly this address.' },
      { title: 'On the IP Address tab', query: '10.1.2.3', type: 'ip_address', note: 'The tab searches the ip_address field; the address is checked before it is sent.' },
      { title: 'A range', query: '10.1.*.*&wildcard', type: 'ip_address', note: 'Every address starting with 10.1.' },
      { title: 'IPv6', query: 'ip_address:2001:db8::1', note: 'Any way of writing the address matches: it is compared in canonical form.' },
    ],
  },
  {
    id: 'domain',
    title: 'Domain',
    intro: ['The domain field holds the domains found in a record and the domain of every email address, so one search finds both.'],
    examples: [
      { title: 'Everything about a domain', query: 'domain:example.com', note: 'Records with example.com as a domain or in an email address.' },
      { title: 'Domain Scan tab', query: 'example.com', type: 'domain_scan', note: 'The Domain Scan tab searches the domain field.' },
      { title: 'Emails of a domain', query: 'email:*@example.com&wildcard', note: 'Only email addresses at example.com.' },
    ],
  },
  {
    id: 'wildcard',
    title: 'Wildcard',
    intro: [
      'Wildcards are off until you turn on the Wildcard switch, or end the query with &wildcard.',
      '? matches exactly one character and * any number of characters.',
      'A wildcard needs a field (username:jo*, not jo*) and a query cannot start with one.',
      'For email addresses, split the search into an email part and a &domain: part.',
    ],
    examples: [
      { title: 'Starts with', query: 'username:wildcat*&wildcard', note: 'wildcat1, wildcat2, wildcat99…' },
      { title: 'One character', query: 'username:wildcat?&wildcard', note: 'wildcat1 and wildcat2, not wildcat99.' },
      { title: 'Email part and domain part', query: 'email:john*&domain:example.com&wildcard', note: 'Addresses at example.com whose local part starts with john.' },
    ],
  },
  {
    id: 'regex',
    title: 'Regex',
    intro: [
      'Regular expressions are off until you turn on the Regex switch, or end the query with &regex.',
      'A regex needs a field; the surrounding slashes are added for you, so username:j.hn and username:/j.hn/ are the same.',
      'Wildcard and regex cannot be mixed in one query.',
      'For email addresses, split the search into an email part and a &domain: part.',
    ],
    examples: [
      { title: 'Digits at the end', query: 'username:/^wildcat[0-9]+$/&regex', note: 'wildcat followed by digits only.' },
      { title: 'Slashes added for you', query: 'username:j.hn_smith&regex', note: '. matches any one character: john_smith, jahn_smith…' },
      { title: 'Email part and domain part', query: 'email:^jo.n&domain:example.com&regex', note: 'Local parts starting with jo, any one character, then n (john, joan…), at example.com.' },
    ],
  },
  {
    id: 'origin',
    title: 'Origin Matching',
    intro: [
      'Add &database_name= to keep only the results of one data well (breach). The name is matched without regard to case; put a name containing spaces in quotes.',
      'It narrows a search: it cannot be the only part of a query.',
    ],
    examples: [
      { title: 'One data well', query: 'email:john.smith@example.com&database_name="Guide Example Well"', note: 'This address, only where it was found in the Guide Example Well.' },
    ],
  },
  {
    id: 'fields',
    title: 'Field Matching',
    intro: [
      'field:value searches one field; a value alone searches every field (or the field of the selected tab).',
      'Put values containing spaces in quotes.',
    ],
    examples: [
      { title: 'One field', query: 'username:john_smith', note: 'Only the username field.' },
      { title: 'Quoted value', query: 'name:"John Smith"', note: 'Quotes keep the space inside the value.' },
      { title: 'Every field', query: 'john.smith@example.com', note: 'Any field holding this value.' },
      { title: 'A password hash', query: 'hashed_password:5f4dcc3b5aa765d61d8327deb882cf99', note: 'Use the hashing helper above to get the hashes of a password.' },
    ],
  },
  {
    id: 'operators',
    title: 'Mixing Operators',
    intro: [
      'AND (or &) needs both sides to match, OR either side. AND binds tighter than OR; use parentheses to group.',
      'Write AND and OR in capitals, with spaces around them.',
    ],
    examples: [
      { title: 'Both', query: 'username:john_smith AND password:hunter2', note: 'Records with this username and this password.' },
      { title: 'Either', query: 'username:john_smith OR username:jane_doe', note: 'Records of either user.' },
      { title: 'Grouped', query: '(username:john_smith OR username:jane_doe) & domain:example.com', note: 'Either user, at example.com.' },
    ],
  },
];

/** Every example, in page order. */
export const SEARCH_EXAMPLES: SearchExample[] = GUIDE_SECTIONS.flatMap((section) => section.examples);

/** The Live Example link: the search screen fills in ?q= (and ?type=) and searches. */
export function liveExampleHref(example: SearchExample): string {
  const params = new URLSearchParams({ q: example.query });
  if (example.type && example.type !== 'all') params.set('type', example.type);
  return `/search?${params.toString()}`;
}
