/**
 * `POST /v2/whois/search` and `GET /v2/whois/credits` (docs/whois.md
 * "Calls"). Registered with `app.v2Routes` (whois-plugin.ts), so the API key guard has run.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ErrorBody, Errors } from '../infra/errors';
import {
  LOOKUP_PAGE_ROWS,
  MAX_DOMAIN_LENGTH,
  MAX_REVERSE_TERMS,
  V2_WHOIS_TYPES,
  WHOIS_MESSAGES,
  checkReverseWhois,
  checkWhoisQuery,
  toolOfV2Type,
  v2WhoisData,
  type Checked,
  type V2WhoisType,
  type WhoisQuery,
} from '../common/whois-rules';
import { CreditsSchema, WhoisResponseSchema } from './whois-schemas';

const VALUE_FIELDS = ['domain', 'ip_address', 'mx_address', 'ns_address'] as const;
type ValueField = (typeof VALUE_FIELDS)[number];

/** Clients send the value of any type in any of the four fields (api-compat.md); the type's own field first. */
const OWN_FIELD: Partial<Record<V2WhoisType, ValueField>> = { 'reverse-ip': 'ip_address', 'reverse-mx': 'mx_address', 'reverse-ns': 'ns_address' };

type Body = Partial<Record<ValueField, string>> & {
  search_type: string;
  include?: string[];
  exclude?: string[];
  reverse_type?: string;
  search_after?: string;
  from?: string;
};

function valueOf(type: V2WhoisType, body: Body): string {
  const own = OWN_FIELD[type];
  const fields = own ? [own, ...VALUE_FIELDS.filter((f) => f !== own)] : VALUE_FIELDS;
  for (const field of fields) {
    const value = body[field];
    if (value !== undefined && value.trim() !== '') return value;
  }
  return '';
}

/** The same rules as the dashboard's query text (checkWhoisQuery); reverse WHOIS from its fields. */
function checkV2Query(type: V2WhoisType, body: Body): Checked<WhoisQuery> {
  const tool = toolOfV2Type(type);
  if (tool !== 'reverse_whois') return checkWhoisQuery(tool, valueOf(type, body));
  const terms = checkReverseWhois({
    mode: (body.reverse_type ?? 'current') as 'current' | 'historic',
    include: body.include ?? [],
    exclude: body.exclude ?? [],
  });
  return terms.ok ? { ok: true, value: { tool, terms: terms.value } } : terms;
}

export function registerWhoisV2Routes(app: FastifyInstance) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const security = [{ apiKey: [] }];
  const tags = ['public api v2'];
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody, 503: ErrorBody };
  const Value = (description: string) => Type.String({ maxLength: MAX_DOMAIN_LENGTH + 2, description });
  // Terms are checked by checkReverseWhois (its messages); the schema only bounds the body.
  const Terms = (description: string) => Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 64, description });

  r.post(
    '/whois/search',
    {
      schema: {
        operationId: 'v2WhoisSearch',
        tags,
        security,
        summary:
          'Run a WHOIS tool. 1 WHOIS credit per request, whois-history 25; an answer without data (MISSING_WHOIS_DATA, an empty list) costs nothing. Reverse lookups page by `from` (300 names a page).',
        body: Type.Object(
          {
            search_type: Type.String({ maxLength: 32, description: `One of ${V2_WHOIS_TYPES.join(', ')}.` }),
            domain: Type.Optional(Value('A domain name, such as example.com (IDNs as typed or in punycode).')),
            ip_address: Type.Optional(Value('An IPv4 or IPv6 address (domain is accepted too).')),
            mx_address: Type.Optional(Value('The mail server’s host name (domain is accepted too).')),
            ns_address: Type.Optional(Value('The name server’s host name (domain is accepted too).')),
            include: Type.Optional(Terms(`Up to ${MAX_REVERSE_TERMS} terms a domain’s record must contain.`)),
            exclude: Type.Optional(Terms(`Up to ${MAX_REVERSE_TERMS} terms it must not contain.`)),
            reverse_type: Type.Optional(Type.String({ maxLength: 16, description: 'current (the default): the current record of each domain; historic: every record kept.' })),
            search_after: Type.Optional(Type.String({ maxLength: 512, description: "Reverse WHOIS: the previous answer's nextPageSearchAfter." })),
            from: Type.Optional(Type.String({ maxLength: MAX_DOMAIN_LENGTH, description: `The next page: the last name of the previous page. A page holds up to ${LOOKUP_PAGE_ROWS} rows; each page costs 1 credit.` })),
          },
          { additionalProperties: false },
        ),
        response: { 200: WhoisResponseSchema, ...errors },
      },
    },
    async (request) => {
      const body = request.body as Body;
      if (!(V2_WHOIS_TYPES as readonly string[]).includes(body.search_type)) throw Errors.badRequest(WHOIS_MESSAGES.invalidSearchType);
      const type = body.search_type as V2WhoisType;
      const query = checkV2Query(type, body);
      if (!query.ok) throw Errors.badRequest(query.message);
      const answer = await app.whois.run(request.apiKeyUserId, query.value, { searchAfter: body.search_after ?? null, from: body.from ?? null });
      return { search_type: type, ...answer, data: v2WhoisData(query.value.tool, answer.data) };
    },
  );

  r.get(
    '/whois/credits',
    { schema: { operationId: 'v2WhoisCredits', tags, security, summary: 'WHOIS credits left.', response: { 200: CreditsSchema, ...errors } } },
    async (request) => ({ whois_credits: await app.whois.credits(request.apiKeyUserId) }),
  );
}
