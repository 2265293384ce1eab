import { sql, type Kysely } from 'kysely';

// Frozen: never edit after it lands; add a new migration instead.
// Passive DNS keeps one B-tree instead of two: every index an ingested row updates slows the
// ingest (docs/whois-benchmark.md).
// Every read of `pdns` is a reverse lookup, one range of (rrtype, rdata, rrname_rev); the
// primary key in name order served only to find conflicts. The reverse index becomes the
// primary key (same columns, so a row is still unique per name, type and answer): each
// ingested row now updates one index, not two. `rrtype` compares in "C" like the other key
// columns (plain byte comparison, not the database's collation).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table pdns drop constraint pdns_pkey`.execute(db);
  await sql`drop index pdns_reverse`.execute(db);
  await sql`alter table pdns alter column rrtype type text collate "C"`.execute(db);
  await sql`alter table pdns add constraint pdns_pkey primary key (rrtype, rdata, rrname_rev) include (first_seen, last_seen)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table pdns drop constraint pdns_pkey`.execute(db);
  await sql`alter table pdns alter column rrtype type text`.execute(db);
  await sql`alter table pdns add constraint pdns_pkey primary key (rrname_rev, rrtype, rdata)`.execute(db);
  await sql`create index pdns_reverse on pdns (rrtype, rdata, rrname_rev) include (first_seen, last_seen)`.execute(db);
}
