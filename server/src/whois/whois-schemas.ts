/** The TypeBox schemas of WHOIS answers, shared by the dashboard's routes and /v2. */
import { Type } from '@fastify/type-provider-typebox';

/** The answer of `POST /whois` and `POST /v2/whois/search` (WhoisResponse in common/whois-rules.ts). */
export const WhoisResponseSchema = Type.Object({
  search_type: Type.String(),
  data: Type.Unknown({ description: "The tool's answer in WhoisXML API's shapes: WHOIS record, history, reverse WHOIS, reverse IP/MX/NS page or subdomains." }),
  source: Type.String({ description: 'live-rdap, live-whois, local, whoisxml, or none (no provider knew the domain).' }),
  fetched_at: Type.String({ format: 'date-time' }),
  remaining_credits: Type.Integer({ description: 'WHOIS credits left after this request.' }),
});
export const CreditsSchema = Type.Object({ whois_credits: Type.Integer() });
