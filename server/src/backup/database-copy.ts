/**
 * The database's part of a backup (backup.ts): every table of the public schema copied out
 * with COPY inside the backup's snapshot, and copied back in on restore.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import copyStreams from 'pg-copy-streams';

/** Kysely's own bookkeeping: the restore rebuilds it by running the migrations. */
const SKIPPED_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

type Client = pg.Client | pg.PoolClient;

export interface TableInfo {
  name: string;
  /** Stored columns (generated ones are computed again on restore). */
  columns: string[];
}

/** What the restore is checked against. */
export interface DatabaseCounts {
  accounts: number;
  credit_ledger: number;
  monitor_tasks: number;
  data_wells: number;
  catalogue_records: number;
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Orders tables so that parents come before the tables whose foreign keys point to them. */
function parentsFirst(wanted: TableInfo[], edges: { child: string; parent: string }[]): TableInfo[] {
  const parents = new Map<string, Set<string>>(wanted.map((t) => [t.name, new Set<string>()]));
  for (const e of edges) parents.get(e.child)?.add(e.parent);
  const ordered: TableInfo[] = [];
  const done = new Set<string>();
  const visit = (table: TableInfo, path: string[]) => {
    if (done.has(table.name)) return;
    if (path.includes(table.name)) throw new Error(`foreign keys form a cycle: ${[...path, table.name].join(' -> ')}`);
    for (const parent of parents.get(table.name) ?? []) {
      const t = wanted.find((w) => w.name === parent);
      if (t) visit(t, [...path, table.name]);
    }
    done.add(table.name);
    ordered.push(table);
  };
  for (const t of wanted) visit(t, []);
  return ordered;
}

/** The public schema's tables (kysely's own left out), parents before the tables whose foreign keys point to them. */
async function listTables(client: Client): Promise<TableInfo[]> {
  const { rows: tables } = await client.query<{ name: string; columns: string[] }>(
    `select c.relname as name,
            array_agg(a.attname::text order by a.attnum) as columns
       from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
      where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
      group by c.relname
      order by c.relname`,
  );
  const { rows: edges } = await client.query<{ child: string; parent: string }>(
    `select distinct c.relname as child, p.relname as parent
       from pg_constraint k
       join pg_class c on c.oid = k.conrelid
       join pg_class p on p.oid = k.confrelid
       join pg_namespace n on n.oid = c.relnamespace
      where k.contype = 'f' and n.nspname = 'public' and c.oid <> p.oid`,
  );
  return parentsFirst(
    tables.filter((t) => !SKIPPED_TABLES.has(t.name)),
    edges,
  );
}

export async function counts(client: Client): Promise<DatabaseCounts> {
  const { rows } = await client.query<DatabaseCounts>(
    `select (select count(*) from users)::int as accounts,
            (select count(*) from credit_ledger)::int as credit_ledger,
            (select count(*) from monitor_tasks)::int as monitor_tasks,
            (select count(*) from data_wells)::int as data_wells,
            (select coalesce(sum(records), 0) from data_wells)::bigint as catalogue_records`,
  );
  return { ...rows[0]!, catalogue_records: Number(rows[0]!.catalogue_records) };
}

/** Copies every table into `dir` (one `<table>.copy` each, then `tables.json`); answers the rows of each. */
export async function copyTablesOut(client: Client, dir: string, log: (line: string) => void): Promise<Record<string, number>> {
  const tables = await listTables(client);
  const tableRows: Record<string, number> = {};
  for (const table of tables) {
    const file = path.join(dir, `${table.name}.copy`);
    const columns = table.columns.map(quoteIdent).join(', ');
    const stream = client.query(copyStreams.to(`copy (select ${columns} from ${quoteIdent(table.name)}) to stdout`));
    await pipeline(stream, fs.createWriteStream(file, { mode: 0o600 }));
    tableRows[table.name] = stream.rowCount ?? 0;
    log(`${table.name}: ${tableRows[table.name]} rows`);
  }
  fs.writeFileSync(path.join(dir, 'tables.json'), `${JSON.stringify(tables, null, 2)}\n`);
  return tableRows;
}

/** Sequences (serial and identity columns) continue after the restored rows. */
async function continueSequences(client: Client, table: TableInfo) {
  for (const column of table.columns) {
    const { rows: sequence } = await client.query<{ s: string | null }>('select pg_get_serial_sequence($1, $2) as s', [quoteIdent(table.name), column]);
    if (!sequence[0]?.s) continue;
    await client.query(`select setval($1, coalesce((select max(${quoteIdent(column)}) from ${quoteIdent(table.name)}), 0) + 1, false)`, [sequence[0].s]);
  }
}

/** Migrations may seed rows (the product catalogue…): the backup's rows replace them. */
async function emptySeededTables(client: Client, tables: TableInfo[]) {
  const seeded: string[] = [];
  for (const table of tables) {
    const { rows: any } = await client.query(`select 1 from ${quoteIdent(table.name)} limit 1`);
    if (any.length) seeded.push(quoteIdent(table.name));
  }
  if (seeded.length) await client.query(`truncate ${seeded.join(', ')} cascade`);
}

/** Loads every table's rows from `dir` in one transaction, each checked against the rows the backup counted. */
export async function copyTablesIn(pool: pg.Pool, tables: TableInfo[], dir: string, expectedRows: Record<string, number>, log: (line: string) => void) {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await emptySeededTables(client, tables);
    for (const table of tables) {
      const columns = table.columns.map(quoteIdent).join(', ');
      const stream = client.query(copyStreams.from(`copy ${quoteIdent(table.name)} (${columns}) from stdin`));
      await pipeline(fs.createReadStream(path.join(dir, `${table.name}.copy`)), stream);
      if ((stream.rowCount ?? 0) !== expectedRows[table.name]) throw new Error(`${table.name}: ${stream.rowCount} rows read, the backup says ${expectedRows[table.name]}`);
      log(`${table.name}: ${stream.rowCount} rows`);
      await continueSequences(client, table);
    }
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
