/**
 * The migration that adds the breach model's columns to data_wells, run over a catalogue
 * that already has wells: each gets its Name by the rule new wells follow (oldest first
 * keeps the plain one), the flags their defaults, and Names stay unique in any case.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import { migrationProvider } from '../../src/infra/database';
import { breachNameBase } from '../../src/datawells/datawells-repository';
import { createTestDatabase, stopTestDatabaseServer } from '../support/harness';

const BEFORE = '20261128T0015_invoice_details';

let database: { url: string; drop(): Promise<void> };
let db: Kysely<any>;

before(async () => {
  database = await createTestDatabase();
  db = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 1 }) }) });
});
after(async () => {
  await db?.destroy();
  await database?.drop();
  await stopTestDatabaseServer();
});

test('existing wells get unique Names, oldest first; the flags their defaults', async () => {
  const migrator = new Migrator({ db, provider: migrationProvider });
  const first = await migrator.migrateTo(BEFORE);
  assert.equal(first.error, undefined);
  const wells = ['Adobe 2013', 'adobe-2013', 'ADOBE 2013', '   ', 'linkedIn scrape', 'Фото 2020'];
  for (const [i, name] of wells.entries()) {
    await db.insertInto('data_wells').values({ name, created_at: sql`now() - make_interval(days => ${10 - i})` }).execute();
  }
  const latest = await migrator.migrateToLatest();
  assert.equal(latest.error, undefined);
  assert.ok(latest.results?.every((r) => r.status === 'Success'));

  const rows = await db.selectFrom('data_wells').selectAll().orderBy('created_at').execute();
  assert.deepEqual(
    rows.map((r) => [r.name, r.breach_name]),
    [
      ['Adobe 2013', 'Adobe2013'],
      ['adobe-2013', 'Adobe20132'],
      ['ADOBE 2013', 'ADOBE20133'],
      ['   ', 'Breach'],
      ['linkedIn scrape', 'LinkedInScrape'],
      ['Фото 2020', '2020'],
    ],
  );
  // New wells follow the same rule (datawells-repository.ts).
  assert.deepEqual(wells.map(breachNameBase), ['Adobe2013', 'Adobe2013', 'ADOBE2013', 'Breach', 'LinkedInScrape', '2020']);
  for (const r of rows) {
    assert.equal(r.domain, '');
    assert.deepEqual(
      [r.is_verified, r.is_fabricated, r.is_retired, r.is_spam_list, r.is_malware, r.is_subscription_free, r.is_stealer_log],
      [true, false, false, false, false, false, false],
    );
  }
  await assert.rejects(
    db.updateTable('data_wells').set({ breach_name: 'LINKEDINSCRAPE' }).where('name', '=', 'Adobe 2013').execute(),
    /data_wells_breach_name_key/,
    'Names are unique in any case',
  );
  await assert.rejects(db.insertInto('data_wells').values({ name: 'No Name' }).execute(), /breach_name/, 'a well always has a Name');
});
