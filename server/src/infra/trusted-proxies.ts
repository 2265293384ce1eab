/**
 * Fastify's `trustProxy` for TRUSTED_PROXIES: the same list check as Fastify's own
 * (`@fastify/proxy-addr`'s `compile`: addresses, CIDR ranges, `loopback` and the other
 * names), remembered per address. Fastify asks it for every hop of every request's
 * X-Forwarded-For, and each time `request.ip` or `request.ips` is read; the check parses
 * the address anew each time (about 4 µs of a /v2/search request's event-loop time under
 * load, loadtest --profile). The peers asking are few (the proxies themselves), so the
 * answers are kept in a bounded map.
 */
import proxyAddr from '@fastify/proxy-addr';

/** Addresses remembered at most; past it the map starts again (a proxy's own addresses come back at once). */
const REMEMBERED = 1024;

export function trustedProxyCheck(list: string[]): (address: string, hop: number) => boolean {
  const trust = proxyAddr.compile(list);
  const known = new Map<string, boolean>();
  return (address, hop) => {
    let trusted = known.get(address);
    if (trusted === undefined) {
      trusted = trust(address, hop);
      if (known.size >= REMEMBERED) known.clear();
      known.set(address, trusted);
    }
    return trusted;
  };
}
