/**
 * server/src/db/schema.ts (Kysely's view of the tables) and the database the migrations make
 * agree: the same tables, the same columns, the same nullability, and no column typed
 * Generated<> that the database cannot fill in itself. schema.ts is read with the TypeScript
 * compiler, so what this compares is the source every query is checked against.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { migrateToLatest } from '../../src/infra/database';
import { createTestDatabase } from '../support/harness';

const SCHEMA_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/db/schema.ts');
/** Kysely's own bookkeeping: not part of the application's schema. */
const MIGRATOR_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

interface ColumnShape {
  nullable: boolean;
  generated: boolean;
}
type Tables = Map<string, Map<string, ColumnShape>>;

/** The tables of `interface Database` in schema.ts, each column's nullability and whether it is Generated<>. */
function declaredTables(): Tables {
  const source = ts.createSourceFile(SCHEMA_FILE, fs.readFileSync(SCHEMA_FILE, 'utf8'), ts.ScriptTarget.Latest, true);
  const interfaces = new Map<string, ts.InterfaceDeclaration>();
  const aliases = new Map<string, ts.TypeAliasDeclaration>();
  source.forEachChild((node) => {
    if (ts.isInterfaceDeclaration(node)) interfaces.set(node.name.text, node);
    if (ts.isTypeAliasDeclaration(node)) aliases.set(node.name.text, node);
  });

  /** Whether the type a select reads can be null, and whether the type is Generated<>. */
  function shape(type: ts.TypeNode): ColumnShape {
    if (ts.isTypeReferenceNode(type) && ts.isIdentifier(type.typeName)) {
      const name = type.typeName.text;
      const first = type.typeArguments?.[0];
      if (name === 'Generated' && first) return { ...shape(first), generated: true };
      if (name === 'ColumnType' && first) return shape(first);
      const alias = aliases.get(name);
      if (alias) return shape(alias.type);
    }
    if (ts.isUnionTypeNode(type)) {
      const members = type.types.map(shape);
      return { nullable: members.some((m) => m.nullable), generated: members.some((m) => m.generated) };
    }
    if (ts.isLiteralTypeNode(type) && type.literal.kind === ts.SyntaxKind.NullKeyword) return { nullable: true, generated: false };
    if (ts.isParenthesizedTypeNode(type)) return shape(type.type);
    return { nullable: false, generated: false };
  }

  const database = interfaces.get('Database');
  assert.ok(database, 'schema.ts declares interface Database');
  const tables: Tables = new Map();
  for (const member of database.members) {
    assert.ok(ts.isPropertySignature(member) && member.type && ts.isTypeReferenceNode(member.type) && ts.isIdentifier(member.type.typeName));
    const tableName = (member.name as ts.Identifier | ts.StringLiteral).text;
    const table = interfaces.get(member.type.typeName.text);
    assert.ok(table, `interface ${member.type.typeName.text} (table ${tableName}) is declared in schema.ts`);
    const columns = new Map<string, ColumnShape>();
    for (const column of table.members) {
      assert.ok(ts.isPropertySignature(column) && column.type, `${tableName}: a plain property`);
      columns.set((column.name as ts.Identifier).text, shape(column.type));
    }
    tables.set(tableName, columns);
  }
  return tables;
}

let database: { url: string; drop(): Promise<void> };
let db: Kysely<any>;

before(async () => {
  database = await createTestDatabase();
  db = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 1 }) }) });
  await migrateToLatest(db);
});
after(async () => {
  await db?.destroy();
  await database?.drop();
});

/** The tables the migrations made, read from information_schema. */
async function migratedTables(): Promise<Tables> {
  const rows = await db
    .selectFrom('information_schema.columns')
    .select(['table_name', 'column_name', 'is_nullable', 'column_default', 'is_identity', 'is_generated'])
    .where('table_schema', '=', 'public')
    .execute();
  const tables: Tables = new Map();
  for (const row of rows) {
    if (MIGRATOR_TABLES.has(row.table_name)) continue;
    if (!tables.has(row.table_name)) tables.set(row.table_name, new Map());
    tables.get(row.table_name)!.set(row.column_name, {
      nullable: row.is_nullable === 'YES',
      // Filled in by the database: a default, an identity or a generated column.
      generated: row.column_default !== null || row.is_identity === 'YES' || row.is_generated === 'ALWAYS',
    });
  }
  return tables;
}

test('schema.ts declares exactly the tables and columns the migrations make', async () => {
  const declared = declaredTables();
  const migrated = await migratedTables();
  assert.ok(migrated.size > 30, `the migrations made the tables (${migrated.size})`);
  assert.deepEqual([...declared.keys()].sort(), [...migrated.keys()].sort(), 'tables');
  for (const [table, columns] of migrated) {
    assert.deepEqual([...declared.get(table)!.keys()].sort(), [...columns.keys()].sort(), `columns of ${table}`);
  }
});

test('a column is nullable in schema.ts exactly when it is in the database', async () => {
  const declared = declaredTables();
  const mismatches: string[] = [];
  for (const [table, columns] of await migratedTables()) {
    for (const [column, actual] of columns) {
      const expected = declared.get(table)?.get(column);
      if (expected && expected.nullable !== actual.nullable) {
        mismatches.push(`${table}.${column}: ${actual.nullable ? 'NULL' : 'NOT NULL'} in the database, ${expected.nullable ? 'nullable' : 'not nullable'} in schema.ts`);
      }
    }
  }
  assert.deepEqual(mismatches, []);
});

test('a Generated<> column is one the database fills in (a default, an identity or nullable)', async () => {
  const declared = declaredTables();
  const mismatches: string[] = [];
  for (const [table, columns] of await migratedTables()) {
    for (const [column, actual] of columns) {
      const expected = declared.get(table)?.get(column);
      if (expected?.generated && !actual.generated && !actual.nullable) mismatches.push(`${table}.${column}: Generated<> but NOT NULL without a default`);
    }
  }
  assert.deepEqual(mismatches, []);
});
