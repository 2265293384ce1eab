/**
 * The DuckDB peer's SQL, shared by the bench (scripts/bench.ts) and its paced client
 * (paced-client.ts, another process): the table loaded from the bench's flat file, and a
 * PostgreSQL statement of a query class as DuckDB reads it.
 */

/** `create table bench_records` from the flat file (the rows PostgreSQL's table is loaded from). */
export function duckLoadSql(flatTsv: string): string {
  return (
    `create table bench_records as select * from read_csv('${flatTsv.replace(/'/g, "''")}', delim = '\t', header = false, quote = '', escape = '', nullstr = '', ` +
    `columns = {'source': 'INTEGER', 'email': 'VARCHAR', 'username': 'VARCHAR', 'password': 'VARCHAR', 'hashed_password': 'VARCHAR', 'ip_address': 'VARCHAR', 'name': 'VARCHAR', 'phone': 'VARCHAR'})`
  );
}

/** A PostgreSQL statement of a case as DuckDB reads it: `~` (a match anywhere) is regexp_matches, ctid is rowid. */
export function duckSql(sql: string): string {
  return sql.replace(/(\w+) ~ (\$\d+|'[^']*')/g, 'regexp_matches($1, $2)').replace(/\bctid\b/g, 'rowid');
}
