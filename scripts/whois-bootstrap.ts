// Refreshes the shipped IANA RDAP bootstrap for domains (RFC 9224) that the live WHOIS
// provider reads: server/src/whois/live/rdap-bootstrap.json.
//
//   npm run whois-bootstrap [-- --url URL] [--check]
//
// Fetches WHOIS_RDAP_BOOTSTRAP_URL (default https://data.iana.org/rdap/dns.json), checks it
// is a services file, and writes it one service a line (readable diffs) with a `source`
// line saying where and when it was fetched. --check only reports what it would write.
// Where the network does not reach IANA, the shipped snapshot stays as it is.

import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { loadConfig } from '../server/src/config';
import { checkBootstrap, type RdapBootstrap } from '../server/src/whois/rdap-bootstrap-service';

const TARGET = fileURLToPath(new URL('../server/src/whois/live/rdap-bootstrap.json', import.meta.url));
const TIMEOUT_MS = 30_000;
const MAX_BYTES = 4 * 1024 * 1024;

async function fetchBootstrap(url: string): Promise<RdapBootstrap & { description?: string }> {
  // Not reaching the server at all (no DNS, no route, refused, timed out) is said as such:
  // offline, this command can only leave the snapshot as it is.
  const { statusCode, body } = await request(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: 'application/json' } }).catch((error: unknown) => {
    throw new Error(`cannot reach ${url} over the network (${error instanceof Error ? error.message : String(error)}); the shipped snapshot is unchanged`);
  });
  if (statusCode !== 200) {
    await body.dump();
    throw new Error(`${url}: HTTP ${statusCode}`);
  }
  let text = '';
  for await (const chunk of body) {
    text += (chunk as Buffer).toString('utf8');
    if (text.length > MAX_BYTES) throw new Error(`${url}: over ${MAX_BYTES} bytes`);
  }
  return checkBootstrap(JSON.parse(text)) as RdapBootstrap & { description?: string };
}

/** The file as shipped: header fields, then one service a line. */
export function formatBootstrap(file: RdapBootstrap & { description?: string }, source: string): string {
  const lines = [
    '{',
    `"description":${JSON.stringify(file.description ?? 'RDAP bootstrap file for Domain Name System registrations')},`,
    `"publication":${JSON.stringify(file.publication ?? null)},`,
    `"version":${JSON.stringify(file.version ?? '1.0')},`,
    `"source":${JSON.stringify(source)},`,
    '"services":[',
    ...file.services.map((service, i) => `${JSON.stringify(service)}${i < file.services.length - 1 ? ',' : ''}`),
    ']',
    '}',
  ];
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { url: { type: 'string' }, check: { type: 'boolean', default: false } } });
  const url = values.url ?? loadConfig().WHOIS_RDAP_BOOTSTRAP_URL;
  const file = await fetchBootstrap(url);
  const tlds = file.services.reduce((n, [labels]) => n + labels.length, 0);
  const source = `Fetched from ${url} at ${new Date().toISOString()} by npm run whois-bootstrap.`;
  console.log(`${url}: publication ${file.publication ?? '(none)'}, ${file.services.length} services, ${tlds} TLDs`);
  if (values.check) return;
  writeFileSync(TARGET, formatBootstrap(file, source));
  console.log(`wrote ${TARGET}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error: unknown) => {
    console.error(`whois-bootstrap: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
