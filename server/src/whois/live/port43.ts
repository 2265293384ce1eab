/**
 * WHOIS over TCP (RFC 3912): send the query and CRLF, read until the server closes. The
 * server's host comes from untrusted text (an IANA or registry referral), so it is checked
 * and, unless private addresses are allowed, refused when it is or resolves to a private,
 * loopback or reserved address (infra/ssrf.ts, on the address actually connected to).
 * The answer is read up to a byte cap; the exchange ends with the caller's signal.
 */
import net from 'node:net';
import { guardedLookup, isPublicAddress, parseIpLiteral, type Resolver } from '../../infra/ssrf';
import { ProviderError } from '../provider';

export interface Port43Options {
  port: number;
  allowPrivate: boolean;
  /** Host name resolver (tests inject one); default: the system's. */
  resolve?: Resolver;
  maxBytes: number;
  signal: AbortSignal;
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * The host of a referral as servers write it (`whois.example.net`, `whois://whois.x.net`,
 * `http://whois.x.net/`, a trailing dot), or null when it is no host name or IP literal.
 * Ports in the text are ignored: WHOIS runs on the configured port.
 */
export function referralHost(text: string): string | null {
  const rest = text.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const bracketed = /^\[([0-9a-f:.]+)\]/i.exec(rest)?.[1];
  const host = (bracketed ?? (net.isIPv6(rest) ? rest : rest.replace(/[/:?#].*$/, '').replace(/\.$/, ''))).toLowerCase();
  if (net.isIP(host)) return host;
  // Dotted digits that are no plain IPv4 (decimal, short forms) are refused, not resolved.
  return HOST_NAME.test(host) && !/^[0-9.]+$/.test(host) ? host : null;
}

function failure(reason: ConstructorParameters<typeof ProviderError>[1], message: string): ProviderError {
  return new ProviderError('live', reason, message);
}

/** One WHOIS exchange with `host`; resolves with the answer's text. */
export function queryPort43(host: string, query: string, opts: Port43Options): Promise<string> {
  const literal = parseIpLiteral(host);
  if (literal && !opts.allowPrivate && !isPublicAddress(literal)) {
    return Promise.reject(failure('refused', `WHOIS server ${host} is not a public address`));
  }
  if (opts.signal.aborted) return Promise.reject(failure('timeout', `WHOIS server ${host}: out of time`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const socket = net.connect({
      host,
      port: opts.port,
      lookup: guardedLookup({ allowPrivate: opts.allowPrivate, resolve: opts.resolve }) as unknown as net.LookupFunction,
    });
    const finish = (error: ProviderError | null) => {
      if (settled) return;
      settled = true;
      opts.signal.removeEventListener('abort', onAbort);
      socket.destroy();
      if (error) reject(error);
      else resolve(new TextDecoder('utf-8').decode(Buffer.concat(chunks)));
    };
    const onAbort = () => finish(failure('timeout', `WHOIS server ${host}: out of time`));
    opts.signal.addEventListener('abort', onAbort, { once: true });
    // write, not end: some servers take a half-closed connection for a closed one.
    socket.on('connect', () => socket.write(`${query}\r\n`));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > opts.maxBytes) return finish(failure('too-large', `WHOIS server ${host}: answer over ${opts.maxBytes} bytes`));
      chunks.push(chunk);
    });
    socket.on('end', () => finish(null));
    socket.on('close', () => finish(null));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ESSRF') finish(failure('refused', `WHOIS server ${host}: ${error.message}`));
      else finish(failure('network', `WHOIS server ${host}: ${error.code ?? error.message}`));
    });
  });
}
