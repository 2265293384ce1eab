/**
 * The client address as a rate-limit key. Every per-address limit keys on
 * `request.limitAddress`, never on `request.ip`: an IPv6 client usually holds a whole /64
 * (often more), so an exact address would let it rotate past every limit. IPv6 addresses
 * are bucketed by their first IPV6_PREFIX_BITS bits; IPv4 and IPv4-mapped IPv6 addresses
 * stay one bucket per address.
 */
import net from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The client address as rate limits see it (IPv6 bucketed by prefix); see limitAddress(). */
    readonly limitAddress: string;
  }
}

/** Parses an IPv6 address (zone, embedded IPv4 allowed) into its eight 16-bit groups. */
function ipv6Groups(address: string): number[] | null {
  let text = address.replace(/%.*$/, '');
  if (!net.isIPv6(text)) return null;
  const tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const octets = v4[1]!.split('.').map(Number);
    tail.push((octets[0]! << 8) | octets[1]!, (octets[2]! << 8) | octets[3]!);
    text = text.slice(0, -v4[1]!.length) + '0:0';
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').filter(Boolean).map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(rest);
  const groups = rest === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  if (groups.length !== 8) return null;
  if (tail.length) groups.splice(6, 2, ...tail);
  return groups;
}

/**
 * The rate-limit key of an address: IPv4 as is; IPv4-mapped IPv6 as its IPv4 address;
 * other IPv6 as its network of `prefixBits` bits ("2001:db8:1:2::/64"). Anything else
 * (not an address) comes back unchanged.
 */
export function limitAddress(address: string, prefixBits: number): string {
  if (net.isIPv4(address)) return address;
  const groups = ipv6Groups(address);
  if (!groups) return address;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  }
  const bits = Math.max(0, Math.min(128, prefixBits));
  const masked = groups.map((group, i) => {
    const keep = Math.max(0, Math.min(16, bits - i * 16));
    return keep === 0 ? 0 : group & ((0xffff << (16 - keep)) & 0xffff);
  });
  return `${masked.map((g) => g.toString(16)).join(':')}/${bits}`;
}

/**
 * Decorates requests with `limitAddress`, and warns once (at the first such request) when
 * X-Forwarded-For arrives from a peer that is not a trusted proxy: behind a proxy that
 * is not listed in TRUSTED_PROXIES, every client shares the proxy's limits.
 */
export function registerClientAddress(app: FastifyInstance, options: { ipv6PrefixBits: number; trustedProxies: string[] }): void {
  const cache = new WeakMap<FastifyRequest, string>();
  app.decorateRequest('limitAddress', {
    getter(this: FastifyRequest) {
      let key = cache.get(this);
      if (key === undefined) {
        key = limitAddress(this.ip, options.ipv6PrefixBits);
        cache.set(this, key);
      }
      return key;
    },
  });
  let warned = false;
  // A callback hook: it runs on every request, and a callback costs no promise.
  app.addHook('onRequest', (request, _reply, done) => {
    if (warned || request.headers['x-forwarded-for'] === undefined) return done();
    // With a trusted peer, request.ips holds the peer and at least one forwarded hop.
    if ((request.ips?.length ?? 0) > 1) return done();
    warned = true;
    request.log.warn(
      { peer: request.socket.remoteAddress, trustedProxies: options.trustedProxies.length },
      'X-Forwarded-For received from a peer that is not a trusted proxy: it is ignored, and every client behind that proxy shares its rate limits. Set TRUSTED_PROXIES to the proxy addresses.',
    );
    done();
  });
}
