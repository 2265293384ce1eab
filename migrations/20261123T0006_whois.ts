import { sql, type Kysely } from 'kysely';

// Frozen: never edit after it lands; add a new migration instead.
// WHOIS tools (design in docs/whois.md): the local store operators
// fill with `npm run whois-ingest` (and live answers are kept in), the answer cache, the
// files already imported, and the credit holds of lookups in flight.
export async function up(db: Kysely<any>): Promise<void> {
  // Trigram index for reverse WHOIS terms (substring, case-insensitive). A trusted
  // extension since PostgreSQL 13: the database owner may create it.
  await sql`create extension if not exists pg_trgm`.execute(db);

  // One WHOIS record of a domain as seen at a time. `record` holds our WHOIS record
  // (common/whois-rules.ts WhoisRecord); `content_sha256` hashes it without the time it was
  // seen, so the same content seen again only moves `last_observed_at`. `is_current` marks
  // the newest snapshot per domain (the reverse WHOIS "current" mode); `search_text` is the
  // lower-case text reverse WHOIS terms are matched in (whois/snapshots.ts searchTextOf).
  await db.schema
    .createTable('whois_snapshots')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('observed_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_observed_at', 'timestamptz', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('record', 'jsonb', (c) => c.notNull())
    .addColumn('registrar_name', 'text')
    .addColumn('created_date', 'timestamptz')
    .addColumn('updated_date', 'timestamptz')
    .addColumn('expires_date', 'timestamptz')
    .addColumn('search_text', 'text', (c) => c.notNull())
    .addColumn('content_sha256', 'bytea', (c) => c.notNull())
    .addColumn('is_current', 'boolean', (c) => c.notNull().defaultTo(false))
    .addUniqueConstraint('whois_snapshots_domain_content', ['domain', 'content_sha256'])
    .execute();
  await sql`create index whois_snapshots_domain_time on whois_snapshots (domain, observed_at desc)`.execute(db);
  await sql`create unique index whois_snapshots_current on whois_snapshots (domain) where is_current`.execute(db);
  await sql`create index whois_snapshots_terms on whois_snapshots using gin (search_text gin_trgm_ops)`.execute(db);
  await sql`create index whois_snapshots_terms_current on whois_snapshots using gin (search_text gin_trgm_ops) where is_current`.execute(db);

  // Passive DNS observations (draft-dulaunoy-dnsop-passive-dns-cof), one row per
  // (name, type, answer). Names are stored lower-case, without the final dot, and
  // reversed by label (`test.example.www`) so that every name under a domain is one range
  // of the primary key; "C" collation makes that range a plain byte range. MX and NS
  // answers are stored as the host alone (no preference, no final dot), so reverse
  // IP/MX/NS is one range of (rrtype, rdata).
  await sql`
    create table pdns (
      rrname_rev text collate "C" not null,
      rrtype text not null,
      rdata text collate "C" not null,
      first_seen timestamptz not null,
      last_seen timestamptz not null,
      count bigint not null default 1,
      source text not null,
      primary key (rrname_rev, rrtype, rdata)
    )`.execute(db);
  // first/last seen ride in the index: a reverse lookup never reads the table, whose heap
  // pages a popular address with tens of thousands of names would scatter over
  // (docs/whois-benchmark.md has the figures).
  await sql`create index pdns_reverse on pdns (rrtype, rdata, rrname_rev) include (first_seen, last_seen)`.execute(db);

  // Every host name seen (from passive DNS, zone files, certificate logs, subdomain
  // tools), reversed like pdns: a subdomain scan is one range scan.
  await sql`
    create table subdomains (
      name_rev text collate "C" not null,
      first_seen timestamptz not null,
      last_seen timestamptz not null,
      sources text[] not null default '{}',
      -- index-only subdomain scans, as pdns_reverse
      primary key (name_rev) include (first_seen, last_seen)
    )`.execute(db);

  // Files already imported, by content: importing the same file again changes nothing.
  await db.schema
    .createTable('whois_ingest_files')
    .addColumn('sha256', 'text', (c) => c.primaryKey())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('rows', 'bigint', (c) => c.notNull())
    .addColumn('imported_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // Answers of the live and WhoisXML providers, by tool and normalised key.
  await db.schema
    .createTable('whois_cache')
    .addColumn('tool', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('answer', 'jsonb', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('fetched_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('whois_cache_pk', ['tool', 'key'])
    .execute();
  await db.schema.createIndex('whois_cache_expiry').on('whois_cache').column('expires_at').execute();

  // Credits held for a lookup in flight: taken with their ledger row when the request
  // starts, captured when a provider answered, refunded (with a ledger row) when none
  // could. A hold left `held` by a crash is refunded by the sweeper. No query is kept:
  // only what was charged and why.
  await db.schema
    .createTable('whois_holds')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('tool', 'text', (c) => c.notNull())
    .addColumn('cost', 'integer', (c) => c.notNull().check(sql`cost > 0`))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('held').check(sql`status in ('held', 'captured', 'refunded')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('settled_at', 'timestamptz')
    .execute();
  await sql`create index whois_holds_open on whois_holds (created_at) where status = 'held'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['whois_holds', 'whois_cache', 'whois_ingest_files', 'subdomains', 'pdns', 'whois_snapshots']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
