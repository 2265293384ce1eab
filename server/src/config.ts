/**
 * Configuration: validated once, from one schema that also gives its type.
 * Nothing else in the code base reads process.env.
 */
import path from 'node:path';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { productDef } from './common/catalogue';

const Integer = (def: number, min: number, max: number, description: string) =>
  Type.Integer({ default: def, minimum: min, maximum: max, description });

export const ConfigSchema = Type.Object({
  NODE_ENV: Type.Union([Type.Literal('development'), Type.Literal('production'), Type.Literal('test')], {
    default: 'development',
    description: 'development, production or test.',
  }),
  HOST: Type.String({ default: '127.0.0.1', description: 'Interface the HTTP server binds to (0.0.0.0 in containers).' }),
  PORT: Integer(3000, 0, 65535, 'HTTP port (0 picks a free one).'),
  PUBLIC_URL: Type.Optional(
    Type.String({ description: 'Base URL used in mailed links; default http://localhost:PORT.' }),
  ),
  BRAND: Type.String({
    default: 'LeakWell',
    minLength: 1,
    maxLength: 40,
    pattern: '^[A-Za-z0-9][A-Za-z0-9 .-]*$',
    description: 'Product name in the dashboard, mails and invoices; the API key header is {Brand}-Api-Key.',
  }),
  SUPPORT_URL: Type.String({ default: 'https://support.example.com', description: 'External support site.' }),
  DATA_DIR: Type.String({ default: './data', description: 'Embedded database, index and secrets live here.' }),
  INDEX_DIR: Type.Optional(Type.String({ description: 'Search index folder; default DATA_DIR/index.' })),
  DATABASE_URL: Type.Optional(
    Type.String({ description: 'External PostgreSQL; unset starts embedded PostgreSQL under DATA_DIR.' }),
  ),
  EMBEDDED_PG_PORT: Integer(54329, 1024, 65535, 'Port of the embedded PostgreSQL (loopback only).'),
  REDIS_URL: Type.Optional(
    Type.String({ description: 'Redis for jobs and shared rate-limit state; unset uses PostgreSQL and memory.' }),
  ),
  SMTP_URL: Type.Optional(
    Type.String({ description: 'SMTP server (smtp://user:pass@host:port); unset keeps mails in the outbox and prints their links (refused with NODE_ENV=production).' }),
  ),
  MAIL_FROM: Type.Optional(Type.String({ description: 'Sender address; default no-reply@<brand>.local.' })),
  JWT_SECRET: Type.Optional(
    Type.String({ minLength: 32, description: 'HS256 secret for access tokens; default generated once, kept in the database.' }),
  ),
  ACCESS_TOKEN_TTL_SECONDS: Integer(900, 30, 86400, 'Lifetime of an access token.'),
  REFRESH_TTL_DAYS: Integer(30, 1, 365, 'Lifetime of a Remember-Me session.'),
  SESSION_TTL_HOURS: Integer(12, 1, 720, 'Lifetime of a session without Remember Me (the cookie dies with the browser).'),
  VERIFY_TOKEN_TTL_HOURS: Integer(48, 1, 720, 'Lifetime of an email-verification link.'),
  RESET_TOKEN_TTL_MINUTES: Integer(60, 5, 1440, 'Lifetime of a password-reset link.'),
  CLOSURE_TOKEN_TTL_MINUTES: Integer(60, 5, 1440, 'Lifetime of an account-closure link.'),
  TRUSTED_PROXIES: Type.String({
    default: '',
    description: 'Comma-separated proxy addresses/CIDRs whose X-Forwarded-For is trusted; empty trusts none.',
  }),
  IPV6_PREFIX_BITS: Integer(64, 32, 128, 'Per-address limits count an IPv6 client by its network of this many bits (IPv4 stays per address).'),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info', description: 'Pino log level.' },
  ),
  DB_STATEMENT_TIMEOUT_MS: Integer(5000, 100, 600000, 'PostgreSQL statement timeout for request queries.'),
  DB_POOL_SIZE: Integer(10, 1, 200, 'PostgreSQL connection pool size.'),
  SEARCH_TIME_BUDGET_MS: Integer(5000, 1, 60000, 'Time budget of one search; an expensive query past it fails and charges nothing.'),
  SEARCH_DAILY_LIMIT: Integer(2000, 10, 10_000_000, 'Searches per user per day (dashboard and API) before search is locked.'),
  SEARCH_LOCK_HOURS: Integer(24, 1, 8760, 'How long search stays locked after the daily limit is passed.'),
  SEARCH_BAR_AFTER_LOCKS: Integer(3, 1, 1000, 'After this many locks the account is barred from paid features (free monitoring stays).'),
  SEARCH_FLUSH_MS: Integer(250, 20, 500, 'How often the searches counted and credits charged in process are written (one statement for every account).'),
  SEARCH_BATCH_RESERVE: Integer(100, 0, 1_000_000, 'Searches are counted and charged in process only while the account keeps this many credits and searches left; nearer, each search is one exact statement.'),
  SEARCH_CONCURRENCY_PER_USER: Integer(2, 1, 1000, 'Searches (dashboard, API, password checks) one account may run at once on one server instance.'),
  SEARCH_CONCURRENCY_WAIT_MS: Integer(1000, 0, 30_000, 'How long a search over SEARCH_CONCURRENCY_PER_USER waits for a slot before a 429 (Retry-After: 1), nothing counted or charged.'),
  ENGINE_STORE_CACHE_MB: Integer(64, 0, 65_536, "MiB of decompressed store blocks the search engine keeps for the next pages and repeated queries (one cache per process); 0: none."),
  ENGINE_THREADS: Integer(0, 0, 256, "Threads of the search engine's quick lane (lookups) and of its heavy lane (regex and wildcard scans) each; 0: max(2, cores)."),
  API_MAX_DEPTH: Integer(10_000, 10_000, 50_000, 'Public API (/v2/search): the deepest result a client may page to (page × size). The dashboard stays at 10,000.'),
  API_RATE_PER_SECOND: Integer(10, 1, 10_000, 'Public API leaky bucket: requests per second per client address and per credential.'),
  API_RATE_BURST: Integer(10, 1, 100_000, 'Public API leaky bucket: burst size.'),
  ENTRY_REMOVAL_TOKEN_TTL_HOURS: Integer(24, 1, 720, 'Lifetime of an entry-removal confirmation link and of an opt-out link.'),
  // Crypto payments (server/src/payments/crypto): the provider behind /payments/crypto-invoice.
  CRYPTO_PROVIDER: Type.Union([Type.Literal('sandbox'), Type.Literal('btcpay'), Type.Literal('nowpayments')], {
    default: 'sandbox',
    description: 'Crypto payments: sandbox (fake addresses, payments simulated with the admin CLI; refused with NODE_ENV=production), btcpay or nowpayments.',
  }),
  CRYPTO_INVOICE_MINUTES: Integer(60, 5, 1440, 'Lifetime of a crypto invoice (its addresses and amounts).'),
  BTCPAY_URL: Type.Optional(Type.String({ pattern: '^https?://', description: 'BTCPay Server base URL (CRYPTO_PROVIDER=btcpay).' })),
  BTCPAY_STORE_ID: Type.Optional(Type.String({ minLength: 1, description: 'BTCPay store id whose invoices we create.' })),
  BTCPAY_API_KEY: Type.Optional(Type.String({ minLength: 1, description: 'BTCPay Greenfield API key (invoice create and view permissions).' })),
  BTCPAY_WEBHOOK_SECRET: Type.Optional(Type.String({ minLength: 1, description: 'Secret of the BTCPay store webhook pointing to /webhooks/btcpay.' })),
  NOWPAYMENTS_API_URL: Type.String({ default: 'https://api.nowpayments.io', pattern: '^https?://', description: 'NOWPayments API base URL (https://api-sandbox.nowpayments.io for their sandbox).' }),
  NOWPAYMENTS_API_KEY: Type.Optional(Type.String({ minLength: 1, description: 'NOWPayments API key (CRYPTO_PROVIDER=nowpayments).' })),
  NOWPAYMENTS_IPN_SECRET: Type.Optional(Type.String({ minLength: 1, description: 'NOWPayments IPN secret (signs the callbacks to /webhooks/nowpayments).' })),
  // Card payments (server/src/payments/card): the provider behind the checkout overlay.
  CARD_PROVIDER: Type.Union([Type.Literal('sandbox'), Type.Literal('paddle')], {
    default: 'sandbox',
    description: 'Card payments: sandbox (a built-in test overlay; refused with NODE_ENV=production) or paddle (Paddle Billing).',
  }),
  SANDBOX_WEBHOOK_SECRET: Type.Optional(
    Type.String({ minLength: 16, description: 'Secret(s) the sandbox signs its events with (comma-separated, the first signs); default generated once, kept in the database.' }),
  ),
  PADDLE_API_KEY: Type.Optional(Type.String({ minLength: 1, description: 'Paddle Billing API key (server-side; cancels subscriptions).' })),
  PADDLE_CLIENT_TOKEN: Type.Optional(Type.String({ minLength: 1, description: 'Paddle client-side token given to Paddle.js.' })),
  PADDLE_ENVIRONMENT: Type.Union([Type.Literal('sandbox'), Type.Literal('production')], {
    default: 'sandbox',
    description: "Paddle environment: sandbox or production (sets Paddle.js's environment and the API's default URL).",
  }),
  PADDLE_API_URL: Type.Optional(
    Type.String({ pattern: '^https?://', description: 'Paddle API base URL; default https://sandbox-api.paddle.com or https://api.paddle.com by PADDLE_ENVIRONMENT.' }),
  ),
  PADDLE_WEBHOOK_SECRETS: Type.Optional(
    Type.String({ minLength: 1, description: "Paddle notification destination secret(s), comma-separated: every one is accepted (rotation)." }),
  ),
  PADDLE_PRICE_IDS: Type.Optional(
    Type.String({ minLength: 2, description: 'JSON map of SKU to Paddle price id, e.g. {"search-credits":"pri_…"}; unmapped SKUs cannot be bought by card.' }),
  ),
  PADDLE_WEBHOOK_TOLERANCE_SECONDS: Integer(5, 1, 3600, "How far a Paddle-Signature timestamp may be from now (Paddle's SDK allows 5 s)."),
  // Monitoring (docs/monitoring.md): matching, notices and alert delivery.
  MONITOR_SWEEP_MS: Integer(30_000, 100, 3_600_000, 'How often segments not yet matched and deliveries not yet queued are swept into the queues, by one instance (the monitor-sweep task; a lost notify or a crash only delays them).'),
  EXPIRY_NOTICE_DAYS: Integer(3, 1, 60, 'Days before a search, monitoring or enterprise plan ends that its expiry notice is posted (daily job).'),
  LOW_CREDITS_THRESHOLD: Integer(10, 0, 1_000_000, 'Search or WHOIS credits at or under this many post a low-credits notice (daily job).'),
  WEBHOOK_ALLOW_PRIVATE: Type.Boolean({ default: false, description: 'Allow webhook URLs on loopback, private, link-local and CGNAT addresses and on any port (a self-hosted install; tests). Never on a shared service.' }),
  SERVE_SOURCE_MAPS: Type.Boolean({
    default: false,
    description: "Serve the dashboard's source maps (/assets/*.map) for debugging in a browser: they hold the dashboard's source. Off in every mode unless set; the build writes them for the operator either way.",
  }),
  METRICS_TOKEN: Type.Optional(
    Type.String({ minLength: 16, description: 'Bearer token of GET /metrics (Prometheus text format); unset: no /metrics (404) and nothing measured.' }),
  ),
  DNS_SERVERS: Type.Optional(
    Type.String({
      pattern: '^[^,\\s]+(,[^,\\s]+)*$',
      description: "DNS servers of the domain verification's lookups, comma-separated host[:port] (IPv6 as [addr]:port); default the system's.",
    }),
  ),
  WEBHOOK_TIMEOUT_MS: Integer(15_000, 100, 60_000, 'Time a webhook receiver has to answer (connect, send, response).'),
  WEBHOOK_RETRY_DELAYS_MS: Type.String({
    default: '0,5000,300000,1800000,7200000,18000000,36000000,50400000,72000000,86400000',
    pattern: '^\\d+(,\\d+)*$',
    description: 'Delay before each delivery attempt, comma-separated (Standard Webhooks schedule: 0, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h); after the last, the delivery is dead.',
  }),
  SMS_PROVIDER: Type.Union([Type.Literal('outbox'), Type.Literal('twilio')], {
    default: 'outbox',
    description: 'SMS alerts: outbox (kept in the sms_outbox table, like mail without SMTP) or twilio.',
  }),
  TWILIO_API_URL: Type.String({ default: 'https://api.twilio.com', pattern: '^https?://', description: "Twilio REST API base URL (a stub's in tests)." }),
  TWILIO_ACCOUNT_SID: Type.Optional(Type.String({ minLength: 1, description: 'Twilio account SID (SMS_PROVIDER=twilio).' })),
  TWILIO_AUTH_TOKEN: Type.Optional(Type.String({ minLength: 1, description: 'Twilio auth token: authenticates our calls and verifies its signed status callbacks.' })),
  TWILIO_FROM: Type.Optional(Type.String({ minLength: 1, description: 'Sender: a Twilio phone number (+E.164) or a Messaging Service SID (MG…).' })),
  MONITOR_V1_RATE_PER_SECOND: Integer(5, 1, 10_000, 'Monitor API V1: requests per second per key.'),
  MONITOR_V1_BURST: Integer(50, 1, 100_000, 'Monitor API V1: burst size.'),
  MONITOR_V1_BLOCK_SECONDS: Integer(180, 1, 86_400, 'Monitor API V1: how long a key that passed its limit is refused.'),
  // WHOIS tools (docs/whois.md): providers, their order, limits.
  WHOIS_LOOKUP_PROVIDERS: Type.String({ default: 'live,local,whoisxml', pattern: '^(live|local|whoisxml)(,(live|local|whoisxml))*$', description: 'Order in which WHOIS lookups ask providers (after the cache); whoisxml is skipped without WHOISXML_API_KEY.' }),
  WHOIS_DATA_PROVIDERS: Type.String({ default: 'local,whoisxml', pattern: '^(live|local|whoisxml)(,(live|local|whoisxml))*$', description: 'Order for history, reverse WHOIS, reverse IP/MX/NS and subdomain scans.' }),
  WHOIS_TIMEOUT_MS: Integer(8_000, 100, 60_000, 'Time one live lookup (RDAP and port-43 referrals together) or one WhoisXML call may take.'),
  WHOIS_MAX_BYTES: Integer(1_048_576, 1024, 16_777_216, 'Largest RDAP, WHOIS or WhoisXML answer read; a bigger one is a provider failure.'),
  WHOIS_PORT43: Integer(43, 1, 65535, 'TCP port of WHOIS servers (RFC 3912); another only for tests.'),
  WHOIS_IANA_HOST: Type.String({ default: 'whois.iana.org', minLength: 1, description: 'WHOIS server asked first for the referral of a TLD without RDAP.' }),
  WHOIS_RDAP_BOOTSTRAP_URL: Type.String({ default: 'https://data.iana.org/rdap/dns.json', pattern: '^https?://', description: 'IANA RDAP bootstrap file (RFC 9224) refreshed from here; a snapshot ships with the code.' }),
  WHOIS_ALLOW_PRIVATE: Type.Boolean({ default: false, description: 'Allow RDAP/WHOIS servers and referrals on loopback and private addresses (tests only).' }),
  WHOISXML_API_KEY: Type.Optional(Type.String({ minLength: 1, description: 'WhoisXML API key; enables the whoisxml provider.' })),
  WHOISXML_BASE_URL: Type.Optional(Type.String({ pattern: '^https?://', description: "Base URL replacing WhoisXML's hosts (one host serving every API path; a stub's in tests)." })),
});

export type RawConfig = Static<typeof ConfigSchema>;

export interface Config extends RawConfig {
  publicUrl: string;
  dataDir: string;
  indexDir: string;
  mailFrom: string;
  apiKeyHeader: string;
  trustedProxies: string[];
  /** Card provider settings, checked and parsed (see cardSettings). */
  card: CardSettings;
}

export interface CardSettings {
  sandboxWebhookSecrets: string[];
  paddle?: {
    apiKey: string;
    clientToken: string;
    environment: 'sandbox' | 'production';
    apiUrl: string;
    webhookSecrets: string[];
    priceIds: Record<string, string>;
    toleranceSeconds: number;
  };
}

const commaList = (value: string | undefined) => (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);

/** The card provider's settings across fields; returns the problems (each names its setting). */
function cardSettings(raw: RawConfig): { settings: CardSettings; problems: string[] } {
  const problems: string[] = [];
  const settings: CardSettings = { sandboxWebhookSecrets: commaList(raw.SANDBOX_WEBHOOK_SECRET) };
  if (raw.CARD_PROVIDER === 'sandbox' && raw.NODE_ENV === 'production') {
    problems.push('CARD_PROVIDER: the sandbox card provider takes no real payments and is refused with NODE_ENV=production; set CARD_PROVIDER=paddle');
  }
  if (raw.CARD_PROVIDER !== 'paddle') return { settings, problems };
  for (const name of ['PADDLE_API_KEY', 'PADDLE_CLIENT_TOKEN', 'PADDLE_WEBHOOK_SECRETS', 'PADDLE_PRICE_IDS'] as const) {
    if (!raw[name]) problems.push(`${name}: required with CARD_PROVIDER=paddle`);
  }
  let priceIds: Record<string, string> = {};
  if (raw.PADDLE_PRICE_IDS) {
    try {
      const parsed: unknown = JSON.parse(raw.PADDLE_PRICE_IDS);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      priceIds = parsed as Record<string, string>;
      const seen = new Set<string>();
      for (const [sku, priceId] of Object.entries(priceIds)) {
        if (!productDef(sku)) problems.push(`PADDLE_PRICE_IDS: unknown SKU ${sku}`);
        if (typeof priceId !== 'string' || !/^[A-Za-z0-9_-]{1,100}$/.test(priceId)) problems.push(`PADDLE_PRICE_IDS: the price id of ${sku} must be a non-empty id`);
        else if (seen.has(priceId)) problems.push(`PADDLE_PRICE_IDS: price id ${priceId} is given to more than one SKU`);
        else seen.add(priceId);
      }
    } catch {
      problems.push('PADDLE_PRICE_IDS: must be a JSON object mapping SKUs to price ids');
    }
  }
  settings.paddle = {
    apiKey: raw.PADDLE_API_KEY ?? '',
    clientToken: raw.PADDLE_CLIENT_TOKEN ?? '',
    environment: raw.PADDLE_ENVIRONMENT,
    apiUrl: (raw.PADDLE_API_URL ?? (raw.PADDLE_ENVIRONMENT === 'production' ? 'https://api.paddle.com' : 'https://sandbox-api.paddle.com')).replace(/\/+$/, ''),
    webhookSecrets: commaList(raw.PADDLE_WEBHOOK_SECRETS),
    priceIds,
    toleranceSeconds: raw.PADDLE_WEBHOOK_TOLERANCE_SECONDS,
  };
  return { settings, problems };
}

export class ConfigError extends Error {}

/** Validates the environment once; throws a ConfigError listing every problem. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const known = Object.keys(ConfigSchema.properties);
  const input: Record<string, unknown> = {};
  for (const key of known) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const converted = Value.Default(ConfigSchema, Value.Convert(ConfigSchema, input));
  const errors = [...Value.Errors(ConfigSchema, converted)];
  if (errors.length > 0) {
    const lines = errors.map((e) => `  ${e.instancePath.replace(/^\//, '') || '(root)'}: ${e.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const raw = converted as RawConfig;
  const card = cardSettings(raw);
  const problems = [...card.problems];
  if (raw.CRYPTO_PROVIDER === 'sandbox' && raw.NODE_ENV === 'production') {
    problems.push('CRYPTO_PROVIDER: the sandbox crypto provider takes no real payments and is refused with NODE_ENV=production; set CRYPTO_PROVIDER=btcpay or nowpayments');
  }
  if (!raw.SMTP_URL && raw.NODE_ENV === 'production') {
    problems.push('SMTP_URL: without an SMTP server mails stay in the database and their one-time links are printed on the console; refused with NODE_ENV=production; set SMTP_URL');
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  const dataDir = path.resolve(raw.DATA_DIR);
  return {
    ...raw,
    dataDir,
    indexDir: path.resolve(raw.INDEX_DIR ?? path.join(dataDir, 'index')),
    publicUrl: (raw.PUBLIC_URL ?? `http://localhost:${raw.PORT}`).replace(/\/+$/, ''),
    mailFrom: raw.MAIL_FROM ?? `${raw.BRAND} <no-reply@${raw.BRAND.toLowerCase().replace(/[^a-z0-9]+/g, '')}.local>`,
    apiKeyHeader: `${raw.BRAND.replace(/\s+/g, '')}-Api-Key`,
    trustedProxies: raw.TRUSTED_PROXIES.split(',').map((s) => s.trim()).filter(Boolean),
    card: card.settings,
  };
}
