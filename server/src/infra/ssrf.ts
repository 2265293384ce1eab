/**
 * The SSRF guard for webhook URLs (docs/monitoring.md 'Delivery'). A webhook
 * URL is checked when the channel is saved (checkWebhookUrl) and again at every connect
 * (guardedAgent): DNS can change between the two (rebinding), so only the connect-time
 * check is authoritative. Only public unicast addresses pass, and (for webhooks) only the
 * ports 80, 443 and 1024-65535; WEBHOOK_ALLOW_PRIVATE=true (a self-hosted install, tests)
 * lifts both checks.
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupOneOptions, LookupAllOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';
import { MONITORING_MESSAGES, isWebhookUrl } from '../common/monitoring-rules.js';

export type Resolver = (host: string) => Promise<string[]>;

export interface SsrfOptions {
  allowPrivate: boolean;
  /** Resolves a host name to its addresses (tests inject one); default: the system resolver. */
  resolve?: Resolver;
}

export const PRIVATE_TARGET_MESSAGE = 'Webhook URL points to a private, loopback or reserved address';
export const WEBHOOK_PORT_MESSAGE = 'Webhook URL port must be 80, 443 or 1024-65535';

/**
 * The ports a webhook may use: the web's two and the unprivileged range. Below 1024 live
 * the services a request must not be aimed at (SMTP, SSH, databases on well-known ports).
 */
export function isWebhookPort(port: number): boolean {
  return port === 80 || port === 443 || (port >= 1024 && port <= 65535);
}

/** Raised by the connect-time guard; `code` lets the sender tell it from network errors. */
export class SsrfBlockedError extends Error {
  readonly code = 'ESSRF';
  constructor(host: string, address: string, reason?: string) {
    super(reason ?? (host === address ? `refused: ${address} is not a public address` : `refused: ${host} resolves to a non-public address (${address})`));
  }
}

/**
 * Host names that never name a public receiver: localhost in every spelling (any case, a
 * trailing dot: `localhost.`, `foo.localhost.`, `localhost.localdomain`), the special-use
 * suffixes of local networks (`.local` mDNS, `.localdomain`, `.internal`, `.home.arpa`,
 * `.lan`), and single-label names, which the resolver completes with the machine's search
 * domains (`http://metadata/`). `host` is a URL's hostname (already lower-cased).
 */
const LOCAL_SUFFIXES = ['localhost', 'localdomain', 'local', 'internal', 'lan', 'home.arpa'];
export function isLocalName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.+$/, '');
  if (!name.includes('.')) return true;
  return LOCAL_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`));
}

/** The port a URL connects to (its default when it names none). */
function urlPort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/**
 * Parses an IP literal in any spelling the URL parser or a socket would accept: dotted,
 * decimal (2130706433), octal (0177.0.0.1), hex (0x7f.1), short (127.1), bracketed IPv6,
 * IPv4-mapped IPv6 (::ffff:127.0.0.1). Null when `host` is a name.
 */
export function parseIpLiteral(host: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (ipaddr.IPv6.isValid(bare)) return ipaddr.IPv6.parse(bare);
  if (ipaddr.IPv4.isValid(bare)) return ipaddr.IPv4.parse(bare);
  return null;
}

/** True when the address is public unicast (IPv4-mapped IPv6 judged as its IPv4). */
export function isPublicAddress(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  let addr = address;
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) addr = v6.toIPv4Address();
    // IPv4-compatible (::a.b.c.d, deprecated) and NAT64 prefixes embed an IPv4 target.
    else if (v6.parts.slice(0, 6).every((p) => p === 0)) return false;
  }
  return addr.range() === 'unicast';
}

function isPublicAddressText(address: string): boolean {
  const parsed = parseIpLiteral(address);
  return parsed !== null && isPublicAddress(parsed);
}

const systemResolve: Resolver = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) => (error ? reject(error) : resolve(addresses.map((a) => a.address))));
  });

const SAVE_RESOLVE_TIMEOUT_MS = 3000;

/**
 * Checks a webhook URL when a channel is saved: null when allowed, else the refusal
 * message ('invalid URL' for anything but an http(s) URL). A name that does not resolve
 * now is allowed (it cannot be judged; the connect-time guard is the authority).
 */
export async function checkWebhookUrl(url: string, opts: SsrfOptions): Promise<string | null> {
  if (!isWebhookUrl(url)) return MONITORING_MESSAGES.url;
  if (opts.allowPrivate) return null;
  const parsed = new URL(url);
  // The WHATWG parser has already turned every IPv4 spelling (2130706433, 0x7f.1, 127.1.)
  // into dotted form and compressed IPv6 ([::ffff:7f00:1]); a trailing dot is left on names.
  const host = parsed.hostname;
  const literal = parseIpLiteral(host);
  if (literal && !isPublicAddress(literal)) return PRIVATE_TARGET_MESSAGE;
  if (!literal && isLocalName(host)) return PRIVATE_TARGET_MESSAGE;
  if (!isWebhookPort(urlPort(parsed))) return WEBHOOK_PORT_MESSAGE;
  if (literal) return null;
  const resolve = opts.resolve ?? systemResolve;
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    resolve(host).catch(() => [] as string[]),
    new Promise<string[]>((done) => (timer = setTimeout(() => done([]), SAVE_RESOLVE_TIMEOUT_MS))),
  ]).finally(() => clearTimeout(timer));
  return addresses.every(isPublicAddressText) ? null : PRIVATE_TARGET_MESSAGE;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect that refuses a name when any of its addresses is not
 * public. Honours `options.all` (Happy Eyeballs asks for every address).
 */
export function guardedLookup(opts: SsrfOptions) {
  const resolve = opts.resolve ?? systemResolve;
  return (hostname: string, options: LookupOneOptions | LookupAllOptions | number, callback: LookupCallback) => {
    const all = typeof options === 'object' && options.all === true;
    const family = typeof options === 'number' ? options : typeof options === 'object' ? options.family : undefined;
    resolve(hostname).then(
      (found) => {
        let addresses = found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
        if (family === 4 || family === 6) addresses = addresses.filter((a) => a.family === family);
        if (!opts.allowPrivate) {
          const blocked = addresses.find((a) => !isPublicAddressText(a.address));
          if (blocked) return callback(new SsrfBlockedError(hostname, blocked.address), all ? [] : '');
        }
        if (addresses.length === 0) {
          const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          error.code = 'ENOTFOUND';
          return callback(error, all ? [] : '');
        }
        if (all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, all ? [] : ''),
    );
  };
}

/**
 * An undici Agent whose every connection passes the guard: IP literals are checked here
 * (a socket never resolves a literal, so `lookup` alone would let them through) and names
 * through guardedLookup, on the address actually connected to.
 */
export function guardedAgent(opts: SsrfOptions & { connectTimeoutMs?: number; webhookPorts?: boolean }): Agent {
  const connector = buildConnector({ lookup: guardedLookup(opts), timeout: opts.connectTimeoutMs ?? 10_000 } as buildConnector.BuildOptions);
  return new Agent({
    connect: (options, callback) => {
      // Webhooks: the ports allowed at save, checked again on what is actually connected to.
      const port = options.port ? Number(options.port) : options.protocol === 'https:' ? 443 : 80;
      if (opts.webhookPorts && !opts.allowPrivate && !isWebhookPort(port)) {
        callback(new SsrfBlockedError(options.hostname, options.hostname, `refused: port ${port} is not allowed for webhooks`), null);
        return;
      }
      const literal = parseIpLiteral(options.hostname);
      if (literal && !opts.allowPrivate && !isPublicAddress(literal)) {
        callback(new SsrfBlockedError(literal.toString(), literal.toString()), null);
        return;
      }
      connector(options, callback);
    },
  });
}
