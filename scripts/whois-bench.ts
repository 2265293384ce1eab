// WHOIS local store benchmark (figures: docs/whois-benchmark.md): with 10 million passive DNS rows and 1 million
// WHOIS snapshots, reverse IP/MX/NS and subdomain scans answer in ≤ 10 ms and reverse WHOIS
// with 4 include and 4 exclude terms in ≤ 50 ms (median, warm), through the local provider.
//
//   npm run bench:whois -- [--database-url postgres://postgres@127.0.0.1:5432/postgres]
//        [--scale 1] [--runs 200] [--regenerate | --regenerate-snapshots] [--explain] [--only <class>] [--drop]
//   npm run bench:whois -- --write-pdns FILE [--pdns-rows 1000000] [--seed 1] [--first-domain 0]
//
// --write-pdns only writes a passive DNS NDJSON file for timing `npm run whois-ingest`
// (BENCHMARKS.md, "Ingest"): per domain an apex and a www A record, 0-5 more host names,
// an AAAA half the time, 2 MX and 2 NS, answers drawn with a long tail; domains numbered
// from --first-domain, so two files can share some names or none.
//
// Creates (or reuses) the database `whois_bench` on that server, runs the migrations,
// generates the data in SQL (skipped when it is already there, unless --regenerate), then
// times every query class `--runs` times with varied values after one warm-up pass and
// prints median / p95 against the target. `--explain` prints each class's plan (EXPLAIN
// ANALYZE of the provider's own statement); `--drop` drops the database at the end.
// Figures: docs/whois-benchmark.md.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { finished } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { Kysely, PostgresDialect, sql, type CompiledQuery, type RawBuilder } from 'kysely';
import pg from 'pg';
import { LOOKUP_PAGE_ROWS, type ReverseWhoisQuery } from '../server/src/common/whois-rules';
import type { Database } from '../server/src/db/schema';
import { createPool, migrateToLatest } from '../server/src/infra/database';
import { createLocalProvider, reverseName, type ReverseKind } from '../server/src/whois/local-store-service';
import { rng } from './lib/random';

const { values: args } = parseArgs({
  options: {
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    scale: { type: 'string', default: '1' },
    runs: { type: 'string', default: '200' },
    regenerate: { type: 'boolean', default: false },
    'regenerate-snapshots': { type: 'boolean', default: false },
    explain: { type: 'boolean', default: false },
    drop: { type: 'boolean', default: false },
    only: { type: 'string' },
    'write-pdns': { type: 'string' },
    'pdns-rows': { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '1' },
    'first-domain': { type: 'string', default: '0' },
  },
});
const DB_NAME = 'whois_bench';
const scale = Number(args.scale);
const RUNS = Number(args.runs);

// Sizes at scale 1: 10 M passive DNS rows (5 M A, 1 M AAAA, 2 M MX, 2 M NS) over 1 M
// domains and 5 M host names; 1 M snapshots of 800,000 domains (200,000 with two).
const N_DOMAINS = Math.round(1_000_000 * scale);
const N_HOSTS = Math.round(3_000_000 * scale);
const N_AAAA = Math.round(1_000_000 * scale);
const N_IPS = Math.max(100, Math.round(400_000 * scale));
const N_MAIL = Math.max(50, Math.round(50_000 * scale));
const N_DNS = Math.max(50, Math.round(100_000 * scale));
const N_WHOIS_DOMAINS = Math.round(800_000 * scale);
const N_TWICE = Math.round(200_000 * scale);
const PDNS_ROWS = 2 * N_DOMAINS + N_HOSTS + N_AAAA + 4 * N_DOMAINS;
const SNAPSHOT_ROWS = N_WHOIS_DOMAINS + N_TWICE;

const log = (line: string) => console.error(line);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? NaN;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))] ?? NaN;
const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 1)} ms`;

async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const value = await fn();
  log(`  ${label}: ${((performance.now() - start) / 1000).toFixed(1)} s`);
  return value;
}

// ---------------------------------------------------------------------------
// Vocabulary of the snapshots: registrars, people, organisations, countries, e-mail
// providers. Picks are skewed (x³ of a uniform draw) so some terms are in a third of the
// records and others in a handful: reverse WHOIS terms of every selectivity.

const REGISTRARS = [
  'GoDaddy.com, LLC', 'NameCheap, Inc.', 'Tucows Domains Inc.', 'Network Solutions, LLC', 'Google LLC', 'Gandi SAS',
  'OVH sas', 'IONOS SE', 'Porkbun LLC', 'Dynadot Inc', 'Key-Systems GmbH', 'Amazon Registrar, Inc.', 'Cloudflare, Inc.',
  'Alibaba Cloud Computing Ltd.', 'eNom, LLC', 'Hostinger Operations, UAB', 'Register.com, Inc.', 'Wild West Domains, LLC',
  'Name.com, Inc.', 'MarkMonitor Inc.', 'CSC Corporate Domains, Inc.', 'Epik Inc.', 'Sav.com, LLC', 'Openprovider', 'Realtime Register B.V.',
];
const FIRST = [
  'James', 'Mary', 'John', 'Patricia', 'Robert', 'Jennifer', 'Michael', 'Linda', 'William', 'Elizabeth', 'David', 'Barbara',
  'Richard', 'Susan', 'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Charles', 'Karen', 'Daniel', 'Nancy', 'Matthew', 'Lisa',
  'Anthony', 'Betty', 'Mark', 'Margaret', 'Donald', 'Sandra', 'Steven', 'Ashley', 'Paul', 'Kimberly', 'Andrew', 'Emily',
  'Joshua', 'Donna', 'Kenneth', 'Michelle', 'Kevin', 'Dorothy', 'Brian', 'Carol', 'George', 'Amanda', 'Lukas', 'Sofia',
  'Mateo', 'Chloe', 'Hiroshi', 'Yuki', 'Olga', 'Ivan', 'Fatima', 'Ahmed', 'Wei', 'Mei', 'Pierre', 'Camille',
];
const LAST = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez', 'Hernandez',
  'Lopez', 'Gonzalez', 'Wilson', 'Anderson', 'Thomas', 'Taylor', 'Moore', 'Jackson', 'Martin', 'Lee', 'Perez', 'Thompson',
  'White', 'Harris', 'Sanchez', 'Clark', 'Ramirez', 'Lewis', 'Robinson', 'Walker', 'Young', 'Allen', 'King', 'Wright',
  'Scott', 'Torres', 'Nguyen', 'Hill', 'Flores', 'Green', 'Adams', 'Nelson', 'Baker', 'Hall', 'Rivera', 'Campbell',
  'Mitchell', 'Carter', 'Roberts', 'Mueller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Meyer', 'Wagner', 'Becker',
  'Dubois', 'Moreau', 'Laurent', 'Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Tanaka', 'Suzuki', 'Takahashi',
  'Ivanov', 'Smirnov', 'Kuznetsov', 'Wang', 'Li', 'Zhang', 'Liu', 'Chen', 'Yang', 'Kowalski', 'Nowak', 'Jansen', 'De Vries',
  'Silva', 'Santos', 'Oliveira', 'Pereira', 'Costa', 'Andersson', 'Johansson', 'Karlsson', 'Nielsen', 'Hansen', 'Virtanen',
];
const ORG_KINDS = ['Holdings', 'Ltd', 'GmbH', 'Inc.', 'Group', 'Labs', 'Media', 'Consulting', 'Systems', 'Partners', 'Trading', 'Ventures'];
const ORG_FIRST = [
  'Acme', 'Blue', 'Bright', 'Cedar', 'Crystal', 'Delta', 'Eagle', 'Evergreen', 'First', 'Golden', 'Granite', 'Harbor',
  'Horizon', 'Iron', 'Jade', 'Keystone', 'Liberty', 'Lunar', 'Maple', 'Meridian', 'Nova', 'Oak', 'Omega', 'Orchid',
  'Pacific', 'Pinnacle', 'Polar', 'Quantum', 'Red', 'Redwood', 'River', 'Sapphire', 'Silver', 'Solar', 'Summit', 'Sunrise',
  'Titan', 'Urban', 'Vertex', 'Vista', 'Willow', 'Zenith', 'Northern', 'Coastal', 'Alpine', 'Atlas', 'Beacon', 'Cobalt',
];
const ORG_SECOND = [
  'Analytics', 'Apparel', 'Bakery', 'Biotech', 'Books', 'Brewing', 'Builders', 'Capital', 'Clinic', 'Cloud', 'Coffee',
  'Communications', 'Construction', 'Data', 'Design', 'Dental', 'Education', 'Electric', 'Energy', 'Engineering', 'Farms',
  'Finance', 'Fitness', 'Foods', 'Freight', 'Furniture', 'Games', 'Health', 'Hotels', 'Insurance', 'Investments', 'Legal',
  'Logistics', 'Machines', 'Marine', 'Marketing', 'Medical', 'Metals', 'Motors', 'Music', 'Networks', 'Outdoor', 'Pharma',
  'Photography', 'Plastics', 'Printing', 'Properties', 'Realty', 'Recycling', 'Robotics', 'Security', 'Software', 'Solutions',
  'Sports', 'Studios', 'Textiles', 'Tools', 'Travel', 'Water', 'Wireless',
];
const ORG_COUNT = ORG_FIRST.length * ORG_SECOND.length * ORG_KINDS.length;
const PRIVACY = ['REDACTED FOR PRIVACY', 'Domains By Proxy, LLC', 'Whois Privacy Protection Service, Inc.', 'Privacy service provided by Withheld for Privacy ehf'];
const COUNTRIES: [string, string][] = [
  ['United States', 'US'], ['Germany', 'DE'], ['United Kingdom', 'GB'], ['China', 'CN'], ['France', 'FR'], ['Canada', 'CA'],
  ['Japan', 'JP'], ['Netherlands', 'NL'], ['Russia', 'RU'], ['Australia', 'AU'], ['India', 'IN'], ['Brazil', 'BR'],
  ['Spain', 'ES'], ['Italy', 'IT'], ['Poland', 'PL'], ['Sweden', 'SE'], ['Switzerland', 'CH'], ['Turkey', 'TR'],
  ['Iceland', 'IS'], ['Vietnam', 'VN'], ['Czech Republic', 'CZ'], ['Denmark', 'DK'], ['Norway', 'NO'], ['Finland', 'FI'],
  ['Austria', 'AT'], ['Belgium', 'BE'], ['Ireland', 'IE'], ['Portugal', 'PT'], ['Mexico', 'MX'], ['South Africa', 'ZA'],
];
const STATES = ['California', 'Texas', 'New York', 'Florida', 'Washington', 'Arizona', 'Delaware', 'Nevada', 'Bavaria', 'Ontario', 'Ile-de-France', 'Tokyo'];
const MAIL_DOMAINS = ['gmail.com', 'yahoo.com', 'outlook.com', 'hotmail.com', 'proton.me', 'gmx.de', 'mail.ru', 'qq.com', 'icloud.com', 'web.de'];
// Terms in a third of the records or more: the answer is capped at 10,000 domains.
const COMMON_TERMS = ['godaddy', 'united states', 'gmail.com', 'smith', 'redacted for privacy'];
const TLDS = ['com', 'net', 'org', 'io', 'de', 'uk', 'info', 'nl'];

// ---------------------------------------------------------------------------
// Generation, all in SQL. Indexes and keys are dropped while loading and built again from
// their own definitions afterwards (faster than maintaining them row by row).

const domainExpr = (d: string) => sql.raw(`('dom' || ${d} || '.' || (array['${TLDS.join("','")}'])[1 + ${d} % ${TLDS.length}])`);
const domainRevExpr = (d: string) => sql.raw(`((array['${TLDS.join("','")}'])[1 + ${d} % ${TLDS.length}] || '.dom' || ${d})`);
// Skewed pick in [0, n): x³ of a uniform draw; a few values take most rows.
const skewed = (n: number) => sql.raw(`floor(${n} * power(random(), 3))::int`);
const ipv4 = (id: string) => sql.raw(`('203.' || (${id} / 65536) || '.' || ((${id} / 256) % 256) || '.' || (${id} % 256))`);
// Compressed lower-case IPv6 (the stored form): both groups are non-zero, `::1` ends it.
const ipv6 = (id: string) => sql.raw(`('2001:db8:' || to_hex(1 + ${id} / 65535) || ':' || to_hex(1 + ${id} % 65535) || '::1')`);
const seenTimes = sql.raw(`now() - random() * interval '5 years'`);

async function dropKeys(db: Kysely<Database>, tables: string[]): Promise<string[]> {
  const { rows } = await sql<{ stmt: string; drop: string }>`
    select format('alter table %I add constraint %I %s', c.conrelid::regclass, c.conname, pg_get_constraintdef(c.oid)) as stmt,
           format('alter table %I drop constraint %I', c.conrelid::regclass, c.conname) as drop
    from pg_constraint c where c.conrelid::regclass::text = any(${tables}) and c.contype in ('p', 'u')
    union all
    select pg_get_indexdef(i.indexrelid), format('drop index %I', i.indexrelid::regclass)
    from pg_index i where i.indrelid::regclass::text = any(${tables})
      and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`.execute(db);
  for (const row of rows) await sql.raw(row.drop).execute(db);
  return rows.map((r) => r.stmt);
}

/** Builds the passive DNS tables, the snapshots, or both; returns the seconds it took. */
async function generate(db: Kysely<Database>, parts: { dns: boolean; snapshots: boolean }): Promise<number> {
  const start = performance.now();
  const tables = [...(parts.dns ? ['pdns', 'subdomains'] : []), ...(parts.snapshots ? ['whois_snapshots'] : [])];
  log(`generating ${tables.join(', ')}: ${PDNS_ROWS.toLocaleString()} passive DNS rows, ${SNAPSHOT_ROWS.toLocaleString()} snapshots`);
  await sql.raw(`truncate ${tables.join(', ')}`).execute(db);
  const keys = await dropKeys(db, tables);
  await sql`select setseed(0.11)`.execute(db);
  if (parts.dns) await generateDns(db);
  if (parts.snapshots) await generateSnapshots(db);
  await timed('keys and indexes', async () => {
    await sql`set maintenance_work_mem = '1GB'`.execute(db);
    for (const stmt of keys) await sql.raw(stmt).execute(db);
  });
  await timed('vacuum analyze', async () => {
    for (const table of tables) await sql.raw(`vacuum (analyze) ${table}`).execute(db);
  });
  return (performance.now() - start) / 1000;
}

async function generateDns(db: Kysely<Database>): Promise<void> {

  await timed('pdns A (apex, www, hosts)', async () => {
    await sql`insert into pdns (rrname_rev, rrtype, rdata, first_seen, last_seen, count, source)
      select rev, 'A', ${ipv4('ip')}, t, t + random() * (now() - t), 1 + floor(random() * 50), 'bench'
      from (select ${domainRevExpr('g')} || w.suffix as rev, ${skewed(N_IPS)} as ip, ${seenTimes} as t
            from generate_series(1, ${N_DOMAINS}) g, (values (''), ('.www')) w(suffix)) s`.execute(db);
    // Hosts: domain of host g skewed, so a few domains have tens of thousands of names.
    await sql`insert into pdns (rrname_rev, rrtype, rdata, first_seen, last_seen, count, source)
      select ${domainRevExpr('d')} || '.h' || g, 'A', ${ipv4('ip')}, t, t + random() * (now() - t), 1, 'bench'
      from (select g, 1 + ${skewed(N_DOMAINS)} as d, ${skewed(N_IPS)} as ip, ${seenTimes} as t
            from generate_series(1, ${N_HOSTS}) g) s`.execute(db);
  });
  await timed('pdns AAAA', () =>
    sql`insert into pdns (rrname_rev, rrtype, rdata, first_seen, last_seen, count, source)
      select ${domainRevExpr('g')} || case when g % 2 = 0 then '.www' else '' end, 'AAAA', ${ipv6('ip')}, t, t + random() * (now() - t), 1, 'bench'
      from (select g, ${skewed(N_IPS)} as ip, ${seenTimes} as t from generate_series(1, ${N_AAAA}) g) s`.execute(db),
  );
  await timed('pdns MX and NS', () =>
    sql`insert into pdns (rrname_rev, rrtype, rdata, first_seen, last_seen, count, source)
      select ${domainRevExpr('g')}, k.rrtype, k.host || case when k.rrtype = 'MX' then 'mailhost' || mx || '.com' else 'dnsprov' || ns || '.net' end,
             t, t + random() * (now() - t), 1, 'bench'
      from (select g, ${skewed(N_MAIL)} as mx, ${skewed(N_DNS)} as ns, ${seenTimes} as t from generate_series(1, ${N_DOMAINS}) g) s,
           (values ('MX', 'mx1.'), ('MX', 'mx2.'), ('NS', 'ns1.'), ('NS', 'ns2.')) k(rrtype, host)`.execute(db),
  );
  await timed('subdomains (every owner name)', () =>
    sql`insert into subdomains (name_rev, first_seen, last_seen, sources)
      select rrname_rev, min(first_seen), max(last_seen), '{pdns}' from pdns group by rrname_rev`.execute(db),
  );
}

async function generateSnapshots(db: Kysely<Database>): Promise<void> {
  // Organisations: two words and a kind (34,560 names), drawn with a long tail (x² of a uniform draw).
  const orgWord = (list: string[], index: string) => sql`(${sql.val(list)}::text[])[1 + (${sql.raw(index)}) % ${sql.lit(list.length)}]`;
  await timed('whois_snapshots', () =>
    sql`insert into whois_snapshots (domain, observed_at, last_observed_at, source, record, registrar_name, created_date,
                                     search_text, content_sha256, is_current)
      select domain, observed, last_observed, 'bench', record, registrar, created, lower(concat_ws(E'\n',
               registrar, email, person, org, email, state, country, cc, ns || '1.dnsprov' || nsp || '.net', ns || '2.dnsprov' || nsp || '.net')),
             sha256((domain || ':' || k)::bytea), is_current
      from (
        select *, jsonb_strip_nulls(jsonb_build_object(
                 'domainName', domain, 'registrarName', registrar, 'contactEmail', email,
                 'createdDate', to_char(created at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                 'createdDateNormalized', to_char(created at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS "UTC"'),
                 'domainAvailability', 'UNAVAILABLE',
                 'nameServers', jsonb_build_object('hostNames', jsonb_build_array(ns || '1.dnsprov' || nsp || '.net', ns || '2.dnsprov' || nsp || '.net')),
                 'registrant', jsonb_build_object('name', person, 'organization', org, 'email', email, 'state', state, 'country', country, 'countryCode', cc))) as record
        from (
          select domain, k, registrar, created, nsp, ns, is_current, observed,
                 observed + random() * least(interval '1 year', now() - observed) as last_observed,
                 case when private then null else first || ' ' || last end as person,
                 case when private then (${sql.val(PRIVACY)}::text[])[1 + floor(random() * ${PRIVACY.length})::int]
                      else ${orgWord(ORG_FIRST, 'org_i')} || ' ' || ${orgWord(ORG_SECOND, `org_i / ${ORG_FIRST.length}`)} || ' '
                           || ${orgWord(ORG_KINDS, `org_i / ${ORG_FIRST.length * ORG_SECOND.length}`)} end as org,
                 case when private then null else lower(first || '.' || replace(last, ' ', '')) || (floor(random() * 100)::int)
                      || '@' || (${sql.val(MAIL_DOMAINS)}::text[])[1 + ${skewed(MAIL_DOMAINS.length)}] end as email,
                 case when country_i = 0 and random() < 0.8 then (${sql.val(STATES)}::text[])[1 + floor(random() * ${STATES.length})::int] end as state,
                 (${sql.val(COUNTRIES.map((c) => c[0]))}::text[])[1 + country_i] as country,
                 (${sql.val(COUNTRIES.map((c) => c[1]))}::text[])[1 + country_i] as cc
          from (
            select ${domainExpr('d')} as domain, k, k = 2 or d > ${N_TWICE} as is_current,
                   (${sql.val(REGISTRARS)}::text[])[1 + ${skewed(REGISTRARS.length)}] as registrar,
                   case when k = 1 then now() - (2 + random() * 10) * interval '1 year' else now() - random() * interval '1 year' end as observed,
                   now() - (5 + random() * 25) * interval '1 year' as created,
                   random() < 0.35 as private,
                   (${sql.val(FIRST)}::text[])[1 + floor(random() * ${FIRST.length})::int] as first,
                   (${sql.val(LAST)}::text[])[1 + ${skewed(LAST.length)}] as last,
                   floor(${ORG_COUNT} * power(random(), 2))::int as org_i, ${skewed(COUNTRIES.length)} as country_i, ${skewed(N_DNS)} as nsp, 'ns' as ns
            from generate_series(1, ${N_WHOIS_DOMAINS}) d, generate_series(1, 2) k
            where k = 1 or d <= ${N_TWICE}
          ) a
        ) b
      ) c`.execute(db),
  );
}

// ---------------------------------------------------------------------------
// Query classes, each with RUNS varied values drawn from the data (row-weighted, so a
// popular IP or domain is drawn as often as it occurs).

interface QueryClass {
  name: string;
  targetMs: number | null;
  run: (i: number) => Promise<number>;
}

async function sample<T>(db: Kysely<Database>, query: RawBuilder<T>): Promise<T[]> {
  const { rows } = await query.execute(db);
  if (rows.length === 0) throw new Error('no sample rows: is the data there?');
  return rows;
}

function pickOthers(pool: string[], not: string, n: number, random: () => number): string[] {
  const out: string[] = [];
  while (out.length < n) {
    const t = pool[Math.floor(random() * pool.length)]!.toLowerCase();
    if (!not.includes(t) && !out.includes(t)) out.push(t);
  }
  return out;
}

async function queryClasses(db: Kysely<Database>): Promise<QueryClass[]> {
  const local = createLocalProvider(db);
  const options = { signal: new AbortController().signal };
  const random = rng(7);
  const pct = Math.min(100, (RUNS * 400 * 100) / PDNS_ROWS);
  const rdataOf = (rrtype: string) =>
    sample(db, sql<{ rdata: string }>`select rdata from pdns tablesample system (${sql.lit(pct)}) repeatable (1) where rrtype = ${rrtype} limit ${RUNS}`).then((r) => r.map((x) => x.rdata));
  const [ips, ips6, mxs, nss] = await Promise.all([rdataOf('A'), rdataOf('AAAA'), rdataOf('MX'), rdataOf('NS')]);
  // The parent domain of a host name drawn at random (row-weighted: big domains often).
  const parents = (
    await sample(db, sql<{ name_rev: string }>`select name_rev from subdomains tablesample system (${sql.lit(Math.min(100, pct * 2))}) repeatable (2) limit ${RUNS}`)
  ).map((r) => reverseName(r.name_rev.split('.').slice(0, 2).join('.')));
  // The most shared IPs, asked for their second page (`from` the 300th name of the first).
  const popular = await sample(
    db,
    sql<{ rdata: string }>`select rdata from pdns where rrtype = 'A' group by rdata order by count(*) desc limit 20`,
  );
  const secondPages: { ip: string; from: string }[] = [];
  for (const { rdata } of popular) {
    const first = (await local.reverse!('ip', rdata, null, options))!.data;
    if (first.size === LOOKUP_PAGE_ROWS) secondPages.push({ ip: rdata, from: first.result.at(-1)!.name });
  }
  // The domains with the most names (the scan returns up to SUBDOMAIN_MAX_ROWS of them).
  const biggest = Array.from({ length: 20 }, (_, i) => `dom${i + 1}.${TLDS[(i + 1) % TLDS.length]}`);
  // Reverse WHOIS, as a user looks for an owner's domains: the terms of a current record
  // that names its owner (so at least that record matches): organisation, e-mail address
  // (every other query: the person's name instead), registrar and country; and 4 exclude
  // terms it lacks (2 registrars, 2 countries). Redacted records give the "privacy" class:
  // the privacy service's text, registrar, country and name server, all common.
  type Registrant = { organization: string; country: string; email?: string; name?: string };
  const records = await sample(
    db,
    sql<{ search_text: string; registrar_name: string; record: { registrant: Registrant } }>`
      select search_text, registrar_name, record from whois_snapshots tablesample system (${sql.lit(Math.min(100, (RUNS * 50 * 100) / SNAPSHOT_ROWS))}) repeatable (3)
      where is_current limit ${RUNS * 3}`,
  );
  const registrarWord = (name: string) => name.split(/[ ,.]/)[0]!.toLowerCase();
  const excludeTerms = (text: string) => [
    ...pickOthers(REGISTRARS.map(registrarWord), text, 2, random),
    ...pickOthers(COUNTRIES.map((c) => c[0]), text, 2, random),
  ];
  const owned = records.filter((r) => r.record.registrant.email).slice(0, RUNS);
  const redacted = records.filter((r) => !r.record.registrant.email).slice(0, RUNS);
  const reverseQueries = (mode: 'current' | 'historic'): ReverseWhoisQuery[] =>
    owned.map((r, i) => ({
      mode,
      include: [
        r.record.registrant.organization,
        (i % 2 === 0 ? r.record.registrant.email : r.record.registrant.name)!,
        r.registrar_name,
        r.record.registrant.country,
      ].map((t) => t.toLowerCase()),
      exclude: excludeTerms(r.search_text),
    }));
  const privacy: ReverseWhoisQuery[] = redacted.map((r) => ({
    mode: 'current',
    include: [
      r.record.registrant.organization.toLowerCase(),
      registrarWord(r.registrar_name),
      r.record.registrant.country.toLowerCase(),
      r.search_text.split('\n').find((line) => line.startsWith('ns1.'))!,
    ],
    exclude: excludeTerms(r.search_text),
  }));
  const current = reverseQueries('current');
  const historic = reverseQueries('historic');
  const reverse = (kind: ReverseKind, values: string[]) => async (i: number) =>
    (await local.reverse!(kind, values[i % values.length]!, null, options))!.data.size;

  return [
    { name: 'reverse IP (IPv4)', targetMs: 10, run: reverse('ip', ips) },
    { name: 'reverse IP (IPv6)', targetMs: 10, run: reverse('ip', ips6) },
    {
      name: 'reverse IP, second page',
      targetMs: 10,
      run: async (i) => {
        const page = secondPages[i % secondPages.length]!;
        return (await local.reverse!('ip', page.ip, page.from, options))!.data.size;
      },
    },
    { name: 'reverse MX', targetMs: 10, run: reverse('mx', mxs) },
    { name: 'reverse NS', targetMs: 10, run: reverse('ns', nss) },
    { name: 'subdomain scan', targetMs: 10, run: async (i) => (await local.subdomains!(parents[i % parents.length]!, options))!.data.result.count },
    { name: 'subdomain scan, 20 biggest domains', targetMs: null, run: async (i) => (await local.subdomains!(biggest[i % biggest.length]!, options))!.data.result.count },
    {
      name: 'reverse WHOIS 4+4 current',
      targetMs: 50,
      run: async (i) => (await local.reverseWhois!(current[i % current.length]!, null, options))!.data.domainsCount,
    },
    {
      name: 'reverse WHOIS 4+4 historic',
      targetMs: 50,
      run: async (i) => (await local.reverseWhois!(historic[i % historic.length]!, null, options))!.data.domainsCount,
    },
    {
      name: 'reverse WHOIS 4+4, privacy service terms',
      targetMs: null,
      run: async (i) => (await local.reverseWhois!(privacy[i % privacy.length]!, null, options))!.data.domainsCount,
    },
    {
      name: 'reverse WHOIS, one common term',
      targetMs: null,
      run: async (i) => (await local.reverseWhois!({ mode: 'current', include: [COMMON_TERMS[i % COMMON_TERMS.length]!], exclude: [] }, null, options))!.data.domainsCount,
    },
    {
      name: 'WHOIS (current snapshot)',
      targetMs: null,
      run: async (i) => ((await local.whois!(snapshotDomain(i), options)) ? 1 : 0),
    },
    { name: 'WHOIS history', targetMs: null, run: async (i) => (await local.history!(snapshotDomain(i), options))!.data.recordsCount },
  ];
}

/** The i-th domain of the WHOIS classes, spread over the domains that have snapshots. */
function snapshotDomain(i: number): string {
  const d = 1 + ((i * 7919) % N_WHOIS_DOMAINS);
  return `dom${d}.${TLDS[d % TLDS.length]}`;
}

// ---------------------------------------------------------------------------
// Ingest input (--write-pdns): passive DNS common output format, one record a line.

async function writePdnsFile(file: string, rows: number, seed: number, firstDomain: number): Promise<void> {
  const random = rng(seed);
  const skew = (n: number) => Math.floor(n * random() ** 3);
  const ipv4 = (i: number) => `198.${(i >>> 16) % 256}.${(i >>> 8) & 255}.${i & 255}`;
  const out = createWriteStream(file);
  let lines: string[] = [];
  let written = 0;
  const record = async (rrname: string, rrtype: string, rdata: string) => {
    const first = 1_600_000_000 + Math.floor(random() * 1e8);
    lines.push(JSON.stringify({ rrname, rrtype, rdata, time_first: first, time_last: first + Math.floor(random() * 1e7), count: 1 + Math.floor(random() * 100) }));
    written++;
    if (lines.length === 10_000) {
      if (!out.write(lines.join('\n') + '\n')) await once(out, 'drain');
      lines = [];
    }
  };
  for (let d = firstDomain; written < rows; d++) {
    const domain = `dom${d}.${TLDS[d % TLDS.length]}`;
    await record(domain, 'A', ipv4(skew(N_IPS)));
    await record(`www.${domain}`, 'A', ipv4(skew(N_IPS)));
    for (let h = skew(6); h > 0; h--) await record(`h${h}-${Math.floor(random() * 1e6)}.${domain}`, 'A', ipv4(skew(N_IPS)));
    if (random() < 0.5) await record(domain, 'AAAA', `2001:db8:${(1 + skew(65534)).toString(16)}::${(1 + Math.floor(random() * 65534)).toString(16)}`);
    for (const pref of [10, 20]) await record(domain, 'MX', `${pref} mx${skew(50_000)}.mailhost${skew(500)}.com.`);
    for (const ns of [1, 2]) await record(domain, 'NS', `ns${ns}.dnsprov${skew(N_DNS)}.net.`);
  }
  out.end(lines.length > 0 ? lines.join('\n') + '\n' : '');
  await finished(out);
  log(`${file}: ${written.toLocaleString()} passive DNS records`);
}

// ---------------------------------------------------------------------------

async function main() {
  const adminUrl = args['database-url']!;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const exists = await admin.query('select 1 from pg_database where datname = $1', [DB_NAME]);
  if (exists.rowCount === 0) await admin.query(`create database ${DB_NAME}`);
  const { rows: versionRows } = await admin.query<{ server_version: string }>('show server_version');
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${DB_NAME}`;

  const statements: CompiledQuery[] = [];
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: createPool(url.toString(), { max: 2 }) }),
    log: (event) => {
      if (event.level === 'query') statements.push(event.query);
    },
  });
  try {
    await migrateToLatest(db);
    const count = async (table: 'pdns' | 'whois_snapshots' | 'subdomains') =>
      Number((await sql<{ n: string }>`select count(*) as n from ${sql.table(table)}`.execute(db)).rows[0]!.n);
    let generationSeconds: number | null = null;
    const dns = args.regenerate || (await count('pdns')) !== PDNS_ROWS;
    const snapshots = args.regenerate || args['regenerate-snapshots'] || (await count('whois_snapshots')) !== SNAPSHOT_ROWS;
    if (dns || snapshots) {
      generationSeconds = await generate(db, { dns, snapshots });
    } else {
      log('data already there (--regenerate to build it again)');
    }
    const sizes = await sql<{ table: string; rows: string; size: string }>`
      select relname as table, reltuples::bigint as rows, pg_size_pretty(pg_total_relation_size(oid)) as size
      from pg_class where relname in ('pdns', 'subdomains', 'whois_snapshots') order by relname`.execute(db);

    const classes = (await queryClasses(db)).filter((c) => !args.only || c.name.includes(args.only));
    log(`warm-up: every class ${RUNS} times`);
    for (const c of classes) for (let i = 0; i < RUNS; i++) await c.run(i);

    const results: string[] = [];
    for (const c of classes) {
      const times: number[] = [];
      const counts: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const start = performance.now();
        counts.push(await c.run(i));
        times.push(performance.now() - start);
      }
      const med = median(times);
      const verdict = c.targetMs === null ? '' : med <= c.targetMs ? `PASS (≤ ${c.targetMs} ms)` : `MISS (> ${c.targetMs} ms)`;
      results.push(
        `| ${c.name} | ${ms(med)} | ${ms(p95(times))} | ${ms(Math.max(...times))} | ${median(counts)} / ${Math.max(...counts)} | ${verdict} |`,
      );
      if (args.explain) {
        statements.length = 0;
        const slowest = times.indexOf(Math.max(...times));
        await c.run(slowest);
        const statement = statements.at(-1)!;
        const plan = await sql.raw<{ 'QUERY PLAN': string }>(`explain (analyze, buffers, costs off) ${inline(statement)}`).execute(db);
        log(`\n${c.name} (slowest value):\n${plan.rows.map((r) => `  ${r['QUERY PLAN']}`).join('\n')}`);
      }
    }

    console.log(`\nWHOIS local store, ${new Date().toISOString()}`);
    console.log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, ${Math.round(totalmem() / 2 ** 30)} GiB; PostgreSQL ${versionRows[0]!.server_version}`);
    console.log(`rows (planner estimates) and sizes: ${sizes.rows.map((r) => `${r.table} ${Number(r.rows).toLocaleString()} (${r.size})`).join(', ')}`);
    if (generationSeconds !== null) console.log(`generation: ${generationSeconds.toFixed(0)} s`);
    console.log(`\n${RUNS} warm runs a class, through the local provider (node-pg round trip included)\n`);
    console.log('| class | median | p95 | max | rows (median / max) | target |');
    console.log('|---|---|---|---|---|---|');
    for (const line of results) console.log(line);
  } finally {
    await db.destroy();
    if (args.drop) {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${DB_NAME} with (force)`);
      await c.end();
      log(`dropped ${DB_NAME}`);
    }
  }
}

/** A statement with its parameters written in, for EXPLAIN (bench values only: our own data). */
function inline(statement: CompiledQuery): string {
  return statement.sql.replace(/\$(\d+)/g, (_, n: string) => {
    const value = statement.parameters[Number(n) - 1];
    if (value instanceof Date) return `'${value.toISOString()}'::timestamptz`;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    return `'${String(value).replace(/'/g, "''")}'`;
  });
}

if (args['write-pdns']) {
  await writePdnsFile(args['write-pdns'], Number(args['pdns-rows']), Number(args.seed), Number(args['first-domain']));
} else {
  await main();
}
