/** TypeBox schemas of the Breach API v3's keyed calls (v3-account-routes.ts), in the service's field names. */
import { Type } from '@fastify/type-provider-typebox';

export const V3_TAG = 'breach api v3';
export const keyed = [{ hibpApiKey: [] }];

export const V3ErrorBody = Type.Object({ statusCode: Type.Integer(), message: Type.String() });

/** The refusals every keyed call can answer (400 only where it takes a value). */
export const keyedErrors = {
  401: { ...V3ErrorBody, description: 'Missing, malformed or unknown hibp-api-key, or its account has no search subscription.' },
  403: { ...V3ErrorBody, description: 'No user-agent header; or the domain is not verified by the key account.' },
  429: { ...V3ErrorBody, description: 'Rate limit (per key and per address) or the daily search limit; retry-after in seconds.' },
};

export const NotFound = Type.Null({ description: 'Nothing found: an empty body, as the service answers.' });

/** The service's breach model, its fields in its order. */
export const BreachModelSchema = Type.Object({
  Name: Type.String({ description: 'Stable identifier, no spaces (breach/{name} takes it in any case).' }),
  Title: Type.String(),
  Domain: Type.String({ description: "The breached site's domain, '' when none." }),
  BreachDate: Type.String({ description: 'YYYY-MM-DD' }),
  AddedDate: Type.String({ description: 'ISO 8601 UTC, e.g. 2013-12-04T00:00:00Z' }),
  ModifiedDate: Type.String({ description: 'ISO 8601 UTC' }),
  PwnCount: Type.Integer(),
  Description: Type.String({ description: 'HTML (our plain-text descriptions, escaped).' }),
  LogoPath: Type.String({ description: "Absolute URL, '' when the well has no logo." }),
  DataClasses: Type.Array(Type.String()),
  IsVerified: Type.Boolean(),
  IsFabricated: Type.Boolean(),
  IsSensitive: Type.Boolean(),
  IsRetired: Type.Boolean(),
  IsSpamList: Type.Boolean(),
  IsMalware: Type.Boolean(),
  IsSubscriptionFree: Type.Boolean(),
  IsStealerLog: Type.Boolean(),
});

/** A breach model; with `truncateResponse` (the default) only its Name. */
export const BreachItem = Type.Object({
  ...Type.Pick(BreachModelSchema, ['Name']).properties,
  ...Type.Partial(Type.Omit(BreachModelSchema, ['Name'])).properties,
});

const bool = (description: string) => Type.Optional(Type.String({ description: `${description} \`true\` or \`false\`, any case.` }));

export const BreachedAccountQuery = Type.Object({
  truncateResponse: bool('Default true: only each breach\'s Name; false: the whole breach models.'),
  domain: Type.Optional(Type.String({ description: 'Only breaches of this domain (the breach\'s Domain, any case).' })),
  includeUnverified: bool('Default true; false leaves out breaches flagged unverified.'),
});

export const AccountParams = Type.Object({
  account: Type.String({ description: 'An email address (exact search) or, without `@`, a username; any case, trimmed, URL-encoded or not.' }),
});
export const EmailParams = Type.Object({ email: Type.String({ description: 'An email address of a domain the key account verified.' }) });
export const DomainParams = Type.Object({ domain: Type.String({ description: 'A domain the key account verified (or a subdomain of one).' }) });

export const AliasMap = Type.Record(Type.String(), Type.Array(Type.String()), { description: 'Each alias (the part before @) to its values, sorted.' });

export const SubscribedDomain = Type.Object({
  DomainName: Type.String(),
  PwnCount: Type.Union([Type.Integer(), Type.Null()]),
  PwnCountExcludingSpamLists: Type.Union([Type.Integer(), Type.Null()]),
  PwnCountExcludingSpamListsAtLastSubscriptionRenewal: Type.Union([Type.Integer(), Type.Null()]),
  NextSubscriptionRenewal: Type.Union([Type.String(), Type.Null()]),
});

export const SubscriptionStatus = Type.Object({
  SubscriptionName: Type.String(),
  Description: Type.String(),
  SubscribedUntil: Type.Union([Type.String(), Type.Null()]),
  Rpm: Type.Integer(),
  DomainSearchMaxBreachedAccounts: Type.Integer(),
  IncludesStealerLogs: Type.Boolean(),
});
