/**
 * The network side of domain verification (docs/monitoring.md "Domain verification"): the TXT records
 * of a domain through the resolvers of DNS_SERVERS, and the `.well-known` file fetched
 * through the webhooks' SSRF guard (public addresses only, resolved by the same resolvers,
 * checked at connect time), with one short time limit, a small body cap and no redirects.
 */
import { Resolver } from 'node:dns/promises';
import { request } from 'undici';
import { guardedAgent } from '../infra/ssrf';

/** Time one DNS question may take (per try), and tries. */
const DNS_TIMEOUT_MS = 3000;
const DNS_TRIES = 2;
/** TXT records read from an answer, and the characters of one record looked at. */
const MAX_TXT_RECORDS = 64;
const MAX_TXT_LENGTH = 2048;
/** Time the whole file fetch may take (connect, headers, body). */
export const FILE_TIMEOUT_MS = 5000;
/** Bytes of the file read at most; a token line is far shorter. */
export const FILE_MAX_BYTES = 4096;

export interface DomainVerifierOptions {
  /** DNS_SERVERS: comma-separated host[:port]; undefined for the system's. */
  dnsServers?: string;
  /** The brand, lower-cased and without spaces: `{brand}-verification`. */
  brand: string;
  /** WEBHOOK_ALLOW_PRIVATE: private targets allowed (tests, self-hosted). */
  allowPrivate: boolean;
  /** http instead of https for the file (tests only: never in production). */
  plainHttp: boolean;
  /** Another port for the file (tests' local server); default the scheme's. */
  filePort?: number;
}

/** The label of the TXT record and the file: `{brand}-verification`. */
export function verificationLabel(brand: string): string {
  return `${brand.toLowerCase().replace(/[^a-z0-9-]+/g, '')}-verification`;
}

export function createDomainVerifier(options: DomainVerifierOptions) {
  const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: DNS_TRIES });
  if (options.dnsServers) resolver.setServers(options.dnsServers.split(',').map((s) => s.trim()));
  const label = verificationLabel(options.brand);

  /** Every A and AAAA address of a name through our resolvers (the SSRF guard judges them). */
  async function resolveAddresses(host: string): Promise<string[]> {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
    const addresses = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
    if (addresses.length === 0) throw Object.assign(new Error(`no address for ${host}`), { code: 'ENOTFOUND' });
    return addresses.slice(0, 16);
  }

  const agent = guardedAgent({ allowPrivate: options.allowPrivate, resolve: resolveAddresses, connectTimeoutMs: FILE_TIMEOUT_MS });

  function txtRecord(token: string): string {
    return `${label}=${token}`;
  }

  function fileUrl(domain: string): string {
    const port = options.filePort ? `:${options.filePort}` : '';
    return `${options.plainHttp ? 'http' : 'https'}://${domain}${port}/.well-known/${label}.txt`;
  }

  /** True when a TXT record of the domain is exactly `{brand}-verification={token}`. */
  async function hasTxtRecord(domain: string, token: string): Promise<boolean> {
    let records: string[][];
    try {
      records = await resolver.resolveTxt(domain);
    } catch {
      return false; // NXDOMAIN, no TXT, timeout: not verified.
    }
    const wanted = txtRecord(token);
    return records.slice(0, MAX_TXT_RECORDS).some((chunks) => chunks.join('').slice(0, MAX_TXT_LENGTH).trim() === wanted);
  }

  /** True when the domain's `.well-known` file answers 200 holding the token (first line, trimmed). */
  async function hasFile(domain: string, token: string): Promise<boolean> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), FILE_TIMEOUT_MS);
    try {
      const response = await request(fileUrl(domain), {
        method: 'GET',
        dispatcher: agent,
        signal: controller.signal,
        reset: true,
        headers: { accept: 'text/plain', 'user-agent': `${label}/1.0` },
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response.body) {
        chunks.push(chunk as Buffer);
        size += (chunk as Buffer).length;
        if (size >= FILE_MAX_BYTES) {
          response.body.destroy();
          break;
        }
      }
      if (response.statusCode !== 200) return false;
      const text = Buffer.concat(chunks).subarray(0, FILE_MAX_BYTES).toString('utf8');
      const first = text.split(/\r?\n/, 1)[0]!.trim();
      return first === token || first === txtRecord(token);
    } catch {
      return false; // refused by the guard, timeout, TLS, network: not verified.
    } finally {
      clearTimeout(timer);
    }
  }

  return { txtRecord, fileUrl, hasTxtRecord, hasFile, close: () => agent.close() };
}

export type DomainVerifier = ReturnType<typeof createDomainVerifier>;
