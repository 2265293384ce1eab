/**
 * The `whoisxml` provider (docs/whois.md "Providers"): every tool, from
 * WhoisXML API, when WHOISXML_API_KEY is set. Its answers are already the wire shapes
 * (common/whois-rules.ts), so each is checked and bounded field by field rather than
 * passed on as it came (whoisxml/read.ts, whoisxml/records.ts); one call per tool
 * (whoisxml/tools.ts) over one client (whoisxml/api.ts).
 *
 * Endpoints. With WHOISXML_BASE_URL (a stub in tests, a
 * proxy) every API is a path under that one base, named after the API's host:
 *   WHOIS           www.whoisxmlapi.com/whoisserver/WhoisService  → {base}/whoisserver/WhoisService
 *   history         whois-history.whoisxmlapi.com/api/v1          → {base}/whois-history/api/v1
 *   reverse WHOIS   reverse-whois.whoisxmlapi.com/api/v2 (POST)   → {base}/reverse-whois/api/v2
 *   reverse IP/MX/NS reverse-{ip,mx,ns}.whoisxmlapi.com/api/v1    → {base}/reverse-{ip,mx,ns}/api/v1
 *   subdomains      subdomains.whoisxmlapi.com/api/v1             → {base}/subdomains/api/v1
 */
import type { WhoisProvider } from './provider';
import { whoisXmlClient, type WhoisXmlOptions } from './whoisxml/api';
import { reverseLookup, reverseWhois, subdomains, whoisHistory, whoisLookup } from './whoisxml/tools';

export { whoisXmlUrl, type WhoisXmlOptions } from './whoisxml/api';

export type WhoisXmlProvider = WhoisProvider & {
  /** Closes the connection pool (at shutdown). */
  close(): Promise<void>;
};

export function createWhoisXmlProvider(options: WhoisXmlOptions): WhoisXmlProvider {
  const { call, close } = whoisXmlClient(options);
  return {
    name: 'whoisxml',
    whois: (domain, callOptions) => whoisLookup(call, domain, callOptions),
    history: (domain, callOptions) => whoisHistory(call, domain, callOptions),
    reverseWhois: (query, searchAfter, callOptions) => reverseWhois(call, query, searchAfter, callOptions),
    reverse: (kind, value, from, callOptions) => reverseLookup(call, kind, value, from, callOptions),
    subdomains: (domain, callOptions) => subdomains(call, domain, callOptions),
    close,
  };
}
