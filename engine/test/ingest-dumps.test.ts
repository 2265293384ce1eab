// Dumps as they arrive (SQL from forum, CMS and shop platforms, pg_dump, stealer logs,
// combolists, CSV/TSV in other languages, JSON arrays), ingested through the operator CLI
// without --format, then searched: each value lands in the right field, hashes apart from
// passwords, and the raw record round-trips. Fixtures: engine/test/fixtures/dumps (written by
// hand from the platforms' published CREATE TABLE statements; fictitious values only).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type Engine, ingestFiles, openEngine } from '../index';
import { tempDir } from './helpers';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = join(root, 'engine/test/fixtures/dumps');
let dir: string;
let cleanup: () => void;
let engine: Engine;

function ingest(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts/ingest.ts'), '--index-dir', join(dir, 'index'), '--no-catalogue', ...args], { cwd: root });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

const files = ['forums.sql', 'cms-shops.sql', 'drupal-pg.sql', 'stealer.txt', 'kunden.csv', 'polzovateli.tsv', 'members.json'];

before(async () => {
  ({ dir, cleanup } = tempDir('engine-dumps-'));
  const r = await ingest(['--well', 'Dumps', ...files.map((f) => join(fixtures, f))]);
  assert.equal(r.code, 0, r.err + r.out);
  engine = await openEngine(join(dir, 'index'));
});

after(async () => {
  await engine?.close();
  cleanup?.();
});

async function one(query: string): Promise<Record<string, unknown>> {
  const s = await engine.search({ query });
  assert.equal(s.total, 1, `${query}: ${JSON.stringify(s.entries)}`);
  return s.entries[0] as unknown as Record<string, unknown>;
}

test('mysqldump tables of forum platforms map without flags; hashes are hashed_password', async () => {
  const quill = await one('email:quill@example.com');
  // phpBB's username_clean is the username lower-cased: one value, its first spelling
  // kept (a field's values are kept once per record).
  assert.deepEqual(quill.username, ["Quill O'Hara"]);
  assert.deepEqual(quill.hashed_password, ['$2y$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy']);
  assert.equal(quill.password, undefined, 'a bcrypt hash is never a password');
  assert.deepEqual(quill.ip_address, ['192.0.2.48']);
  assert.deepEqual(quill.dob, [' 4- 7-1990']);
  // The raw record is the row, every column (NULL as null), escapes undone.
  const raw = JSON.parse(quill.raw_record as string) as Record<string, unknown>;
  assert.equal(raw.user_sig, 'Line one\nLine two; with "quotes" and a \\ backslash');
  assert.equal(raw.user_id, '48');
  const smf = await one('username:tin_whistle');
  assert.deepEqual(smf.name, ['Tamsin Whistler']);
  assert.deepEqual(smf.hashed_password, ['6367c48dd193d56ea7b0baad25b19455e529f5ee']);
  assert.deepEqual(smf.ip_address, ['198.51.100.7'], '_binary literal');
  assert.deepEqual(smf.url, ['https://tin.example.net/']);
  assert.deepEqual((await one('email:velvet@example.com')).hashed_password, ['5f4dcc3b5aa765d61d8327deb882cf99']);
  assert.deepEqual((await one('email:ember@example.org')).ip_address, ['198.51.100.12'], '0x literal decoded');
  const seal = await one('email:seal@example.com');
  assert.deepEqual(seal.name, ['Harbor Seal']);
  assert.ok(String((seal.hashed_password as string[])[0]).startsWith('$2a$13$'));
  assert.deepEqual((await one('email:kettle@example.net')).username, ['Copper Kettle']);
  assert.equal((await engine.search({ query: 'board@example.com' })).total, 0, 'phpbb_config is skipped');
});

test('CMS and shop tables; camelCase columns; pg_dump COPY and INSERT', async () => {
  const admin = await one('email:admin@example.com');
  assert.deepEqual(admin.username, ['siteadmin'], 'user_login and user_nicename are one value (kept once)');
  assert.deepEqual(admin.hashed_password, ['$P$984478476IagS59wHZvyQMArzfx58u.']);
  assert.deepEqual(admin.url, ['https://blog.example.com']);
  assert.deepEqual(admin.name, ['Site Admin']);
  assert.ok((await one('email:juniper@example.org')).hashed_password, 'WordPress 6.8 $wp$2y$ hashes');
  assert.deepEqual((await one('username:mfinch')).name, ['Marigold Finch']);
  const shopper = await one('email:shopper@example.com');
  assert.deepEqual(shopper.name, ['Rowan', 'Ashby']);
  assert.deepEqual(shopper.dob, ['1979-09-09']);
  assert.ok(shopper.hashed_password);
  const wren = await one('email:wren@example.co.uk');
  assert.deepEqual(wren.company, ['Ashby Clocks Ltd']);
  assert.ok(wren.hashed_password);
  const linnea = await one('email:linnea@example.se');
  assert.deepEqual(linnea.password, ['plaintext-pass!']);
  assert.deepEqual(linnea.phone, ['+46 70 000 00 77']);
  assert.deepEqual(linnea.ip_address, ['198.51.100.77']);
  const admin2 = await one('email:drupal-admin@example.org');
  assert.deepEqual(admin2.name, ['Drupal Admin']);
  assert.ok(admin2.hashed_password);
  const zoe = await one('email:zoe@example.fr');
  assert.deepEqual(zoe.name, ['Zoé\tTab'], 'COPY escapes');
  assert.ok(String((zoe.hashed_password as string[])[0]).startsWith('pbkdf2_sha256$'));
  const obrien = await one('email:obrien@example.com');
  assert.deepEqual(obrien.name, ["O'Brien \\ Backslash"], 'standard_conforming_strings: a backslash is itself');
  assert.deepEqual(obrien.password, ['hunter22']);
});

test('stealer logs and combolists: URLs with colons, separators, email or username', async () => {
  const v = await one('email:stealer.victim@example.com');
  assert.deepEqual(v.url, ['https://accounts.example.com:8443/login']);
  assert.deepEqual(v.password, ['Sp4ring:2024']);
  const a = await one('username:appuser99');
  assert.deepEqual(a.url, ['android://AbCdEfGh1234567890==@com.example.app/']);
  assert.deepEqual(a.password, ['app-pass']);
  assert.deepEqual((await one('username:shopper_one')).url, ['https://shop.example.net/account/']);
  assert.deepEqual((await one('email:plain@example.org')).password, ['pipe-pass']);
  assert.deepEqual((await one('username:semi_user')).password, ['semi-pass']);
  assert.deepEqual((await one('username:tabuser')).password, ['tab-pass']);
  assert.deepEqual((await one('password:at-pass')).username, ['@handle'], 'no domain: a username');
  const h = await one('username:hasheduser');
  assert.deepEqual(h.hashed_password, ['5f4dcc3b5aa765d61d8327deb882cf99']);
  assert.equal(h.password, undefined);
  // The text path (the public API's) agrees with the parsed one.
  const text = await engine.searchApiText({ query: 'username:appuser99' }, false);
  assert.deepEqual(JSON.parse(text.entriesJson)[0].url, ['android://AbCdEfGh1234567890==@com.example.app/']);
  const hashed = await engine.searchApiText({ query: 'username:hasheduser' }, false);
  assert.equal(JSON.parse(hashed.entriesJson)[0].password, undefined);
});

test('CSV with semicolons and German headers, TSV with Russian headers, a JSON array', async () => {
  const klaus = await one('email:klaus@example.de');
  assert.deepEqual(klaus.username, ['klaus']);
  assert.deepEqual(klaus.password, ['Geheim;123']);
  assert.deepEqual(klaus.dob, ['01.02.1980']);
  assert.deepEqual(klaus.address, ['Musterstraße 1']);
  const heidi = await one('email:heidi@example.de');
  assert.equal(heidi.password, undefined);
  assert.deepEqual(heidi.hashed_password, ['$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW']);
  const ivan = await one('email:ivan@example.ru');
  assert.deepEqual(ivan.username, ['ivan_k']);
  assert.deepEqual(ivan.password, ['qwerty-ru']);
  const one1 = await one('email:array.one@example.com');
  assert.deepEqual(one1.name, ['Array One']);
  assert.deepEqual(one1.password, ['uno-pass']);
  assert.deepEqual(one1.ip_address, ['192.0.2.101']);
  assert.deepEqual((await one('email:array.two@example.com')).hashed_password, ['e10adc3949ba59abbe56e057f20f883e']);
  assert.deepEqual((await one('email:array.three@example.fr')).password, ['trois']);
});

test('--dry-run prints formats, mappings and records, names skipped tables and bad lines, publishes nothing', async () => {
  const index = join(dir, 'dry-index');
  const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'scripts/ingest.ts'), '--index-dir', index, '--well', 'Dry', '--dry-run', join(fixtures, 'forums.sql'), join(fixtures, 'members.json')], { cwd: root });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => resolve({ code, out }));
  });
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /dry run: nothing published/);
  assert.match(r.out, /forums\.sql: sql: 9 records/);
  assert.match(r.out, /table phpbb_users: 3 records of 3 rows/);
  assert.match(r.out, /user_password -> password/);
  assert.match(r.out, /user_sig -> -/);
  assert.match(r.out, /unmapped columns: user_id, user_type, group_id, user_regdate, user_sig/);
  assert.match(r.out, /table phpbb_config: skipped, no column maps to a field/);
  assert.match(r.out, /table xf_user_authenticate: skipped/);
  assert.match(r.out, /"email":\["quill@example.com"\]/);
  assert.match(r.out, /members\.json: json-array: 3 records, 1 bad/);
  assert.match(r.out, /bad line 4: not a JSON object/);
  assert.match(r.out, /columns: contraseña -> password, courriel -> email, customer_email -> email, displayName -> name, emailAddress -> email, lastLoginIp -> ip_address, mot_de_passe -> password, nested -> -, senha -> password/);
  assert.equal(existsSync(index) && readdirSync(index).length > 0, false, 'the index is not touched');
});

test('--table chooses tables; --map overrides a column', async () => {
  writeFileSync(join(dir, 'custom.sql'), "CREATE TABLE accounts (id int, handle_x varchar(20), mail varchar(80));\nINSERT INTO accounts VALUES (1,'custom_handle','custom@example.com');\nCREATE TABLE other (email varchar(80));\nINSERT INTO other VALUES ('other@example.com');\n");
  const r = await ingest(['--well', 'Chosen', '--table', 'accounts', '--map', 'handle_x=username', '--max-segments', '0', join(dir, 'custom.sql')]);
  assert.equal(r.code, 0, r.err + r.out);
  assert.match(r.out, /skipped tables: other \(not chosen with --table\)/);
  await engine.refresh();
  const e = await one('email:custom@example.com');
  assert.deepEqual(e.username, ['custom_handle']);
  assert.equal((await engine.search({ query: 'email:other@example.com' })).total, 0);
});

test('a SQL row and the same values as a JSON line are one record (same dedup key)', async () => {
  // Two columns of one field out of name order, a hash, escapes, NULL: the record made
  // from the row at ingest must be the one its stored line parses into.
  writeFileSync(join(dir, 'twice.sql'), "CREATE TABLE people (surname text, firstname text, email text, pw text, note text);\nINSERT INTO people VALUES ('Zed','Ann','twice@example.com','5f4dcc3b5aa765d61d8327deb882cf99','a\\\\b \\'q\\''),('Yu','Bo','twice2@example.com','plain',NULL);\n");
  writeFileSync(join(dir, 'twice.jsonl'), '{"note":"a\\\\b \'q\'","pw":"5f4dcc3b5aa765d61d8327deb882cf99","email":"twice@example.com","firstname":"Ann","surname":"Zed"}\n{"email":"twice2@example.com","firstname":"Bo","note":null,"pw":"plain","surname":"Yu"}\n');
  const r = await ingest(['--well', 'Twice', '--max-segments', '0', join(dir, 'twice.sql'), join(dir, 'twice.jsonl')]);
  assert.equal(r.code, 0, r.err + r.out);
  await engine.refresh();
  for (const q of ['email:twice@example.com', 'email:twice2@example.com']) {
    assert.equal((await engine.search({ query: q, dedup: false })).total, 2, q);
    assert.equal((await engine.search({ query: q })).total, 1, `${q}: dedup keeps one`);
  }
  const e = await one('email:twice@example.com');
  assert.deepEqual(e.name, ['Ann', 'Zed']);
  assert.deepEqual(e.hashed_password, ['5f4dcc3b5aa765d61d8327deb882cf99']);
});

// The values of one field are kept once per record (a value shown twice reads as data
// ingested wrongly), on every reader, the first spelling kept (fields::same_value: the same normalised
// value); the raw record keeps every column. The dedup key was already made of the distinct
// values, so a record with a value twice and one with it once stay one record.
test('values of one field kept once: a wp_users row whose user_login and user_nicename are equal has its username once (search, text path, dry run); the raw record keeps both columns', async () => {
  const wp =
    "CREATE TABLE `wp_users` (`ID` bigint(20) unsigned NOT NULL AUTO_INCREMENT, `user_login` varchar(60) NOT NULL DEFAULT '', `user_pass` varchar(255) NOT NULL DEFAULT '', `user_nicename` varchar(50) NOT NULL DEFAULT '', `user_email` varchar(100) NOT NULL DEFAULT '', `display_name` varchar(250) NOT NULL DEFAULT '', PRIMARY KEY (`ID`));\n" +
    "INSERT INTO `wp_users` VALUES (1,'jdoe','$P$984478476IagS59wHZvyQMArzfx58u.','jdoe','jdoe@example.net','John Doe'),(2,'Mary.Major','$P$984478476IagS59wHZvyQMArzfx58u.','mary-major','mary.major@example.net','Mary Major');\n";
  writeFileSync(join(dir, 'wp-once.sql'), wp);
  // The same values as the first row, the username once: the same record (dedup key).
  writeFileSync(join(dir, 'wp-once.jsonl'), '{"display_name":"John Doe","user_email":"jdoe@example.net","user_login":"jdoe","user_pass":"$P$984478476IagS59wHZvyQMArzfx58u."}\n');
  const dry = await ingestFiles(join(dir, 'wp-dry-index'), { well: 'WP dry', files: [join(dir, 'wp-once.sql')], dryRun: true });
  assert.deepEqual(dry.files[0]?.tables?.[0]?.samples?.[0]?.username, ['jdoe'], 'the dry run shows it once');
  const r = await ingestFiles(join(dir, 'index'), { well: 'WP once', files: [join(dir, 'wp-once.sql'), join(dir, 'wp-once.jsonl')], maxSegments: 0 });
  assert.equal(r.records, 3);
  await engine.refresh();
  const jdoe = await one('email:jdoe@example.net');
  assert.deepEqual(jdoe.username, ['jdoe']);
  assert.deepEqual(jdoe.hashed_password, ['$P$984478476IagS59wHZvyQMArzfx58u.']);
  const raw = JSON.parse(jdoe.raw_record as string) as Record<string, unknown>;
  assert.equal(raw.user_login, 'jdoe');
  assert.equal(raw.user_nicename, 'jdoe');
  assert.equal((await engine.search({ query: 'email:jdoe@example.net', dedup: false })).total, 2, 'the row and the JSON line');
  assert.deepEqual((await one('email:mary.major@example.net')).username, ['Mary.Major', 'mary-major'], 'different values are both kept');
  const text = await engine.searchApiText({ query: 'username:jdoe' }, false);
  assert.deepEqual(JSON.parse(text.entriesJson)[0].username, ['jdoe']);
});

test('values of one field kept once: two CSV columns of one field, a JSON line with one value twice, a stealer log: each value once, the first spelling of case variants kept', async () => {
  writeFileSync(join(dir, 'once.csv'), 'email,mail,login,username,phone,tel,password\nDup.CSV@Example.com,dup.csv@example.com,csvuser,csvuser,+1 555-0100,15550100,pw-csv\n');
  writeFileSync(
    join(dir, 'once.jsonl'),
    '{"email":"dup.json@example.com","user":"jsonuser","username":"JsonUser","pw":"pw-json"}\n' +
      '{"email":["dup.array@example.com","DUP.ARRAY@example.com"],"password":["same","same","Same"],"ip":["::ffff:192.0.2.9","192.0.2.9"]}\n',
  );
  writeFileSync(join(dir, 'once-stealer.txt'), 'https://accounts.example.org:8443/login:stealer.once@example.org:pw-stealer\n');
  const r = await ingestFiles(join(dir, 'index'), { well: 'Once', files: [join(dir, 'once.csv'), join(dir, 'once.jsonl'), join(dir, 'once-stealer.txt')], maxSegments: 0 });
  assert.deepEqual(r.files.map((f) => f.format), ['csv', 'jsonl', 'combo']);
  await engine.refresh();
  const csv = await one('email:dup.csv@example.com');
  assert.deepEqual(csv.email, ['Dup.CSV@Example.com']);
  assert.deepEqual(csv.username, ['csvuser']);
  assert.deepEqual(csv.phone, ['+1 555-0100']);
  const json = await one('email:dup.json@example.com');
  assert.deepEqual(json.username, ['jsonuser']);
  const arr = await one('email:dup.array@example.com');
  assert.deepEqual(arr.email, ['dup.array@example.com']);
  assert.deepEqual(arr.password, ['same', 'Same'], 'passwords keep their case: two values');
  assert.deepEqual(arr.ip_address, ['::ffff:192.0.2.9']);
  const stealer = await one('email:stealer.once@example.org');
  assert.deepEqual([stealer.url, stealer.email, stealer.password], [['https://accounts.example.org:8443/login'], ['stealer.once@example.org'], ['pw-stealer']]);
  // The text path (the public API's slices of the line) agrees.
  for (const q of ['email:dup.csv@example.com', 'email:dup.json@example.com', 'email:dup.array@example.com']) {
    const text = await engine.searchApiText({ query: q }, false);
    const parsed = (await engine.search({ query: q })).entries[0] as unknown as Record<string, unknown>;
    const entry = JSON.parse(text.entriesJson)[0] as Record<string, unknown>;
    for (const f of ['email', 'username', 'phone', 'password', 'ip_address']) assert.deepEqual(entry[f], parsed[f], `${q} ${f}`);
  }
});

test('LDAP {SSHA}, {SHA}, {MD5}, {SSHA512}, {CRYPT} hashes are hashed_password in SQL, CSV, JSON and stealer logs; {hello}, {SHA} alone and {SSHA}not base64! stay passwords', async () => {
  writeFileSync(
    join(dir, 'ldap.sql'),
    'CREATE TABLE ldap_users (uid text, mail text, userPassword text);\n' +
      "INSERT INTO ldap_users VALUES ('ldap1','ldap1@example.com','{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g='),('ldap2','ldap2@example.com','{crypt}$6$saltsalt$0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH'),('ldap3','ldap3@example.com','{hello}');\n",
  );
  writeFileSync(join(dir, 'ldap.csv'), 'email,login,password\nldap4@example.com,ldap4,{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\nldap5@example.com,ldap5,{SHA}\n');
  writeFileSync(join(dir, 'ldap.jsonl'), '{"email":"ldap6@example.com","password":"{MD5}X03MO1qnZdYdgyfeuILPmQ=="}\n{"email":"ldap7@example.com","password":"{SSHA}not base64!"}\n');
  writeFileSync(
    join(dir, 'ldap-stealer.txt'),
    'https://ldap.example.org/login:ldap8@example.com:{SSHA512}SvmbUKJVUM6Dkzbj1vGBOnbRbJVAR9UXKH25d6EiVAWe86v0QcsWHP3vjRUCvqWTsh2SvwRswdWdS7mTWbDNc2mCo2XfW2wY\nhttps://ldap.example.org/login:ldap9@example.com:{CRYPT}abJnggxhB/yWI\n',
  );
  const r = await ingestFiles(join(dir, 'index'), { well: 'LDAP', files: ['ldap.sql', 'ldap.csv', 'ldap.jsonl', 'ldap-stealer.txt'].map((f) => join(dir, f)), maxSegments: 0 });
  assert.equal(r.records, 9);
  await engine.refresh();
  const hashed: [string, string][] = [
    ['ldap1', '{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g='],
    ['ldap2', '{crypt}$6$saltsalt$0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH'],
    ['ldap4', '{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g='],
    ['ldap6', '{MD5}X03MO1qnZdYdgyfeuILPmQ=='],
    ['ldap8', '{SSHA512}SvmbUKJVUM6Dkzbj1vGBOnbRbJVAR9UXKH25d6EiVAWe86v0QcsWHP3vjRUCvqWTsh2SvwRswdWdS7mTWbDNc2mCo2XfW2wY'],
    ['ldap9', '{CRYPT}abJnggxhB/yWI'],
  ];
  for (const [who, hash] of hashed) {
    const q = `email:${who}@example.com`;
    const e = await one(q);
    assert.deepEqual(e.hashed_password, [hash], q);
    assert.equal(e.password, undefined, `${q}: an LDAP hash is never a password`);
    const text = JSON.parse((await engine.searchApiText({ query: q }, false)).entriesJson)[0] as Record<string, unknown>;
    assert.deepEqual([text.hashed_password, text.password], [[hash], undefined], `${q} (text path)`);
  }
  for (const [who, pw] of [['ldap3', '{hello}'], ['ldap5', '{SHA}'], ['ldap7', '{SSHA}not base64!']]) {
    const e = await one(`email:${who}@example.com`);
    assert.deepEqual(e.password, [pw], who);
    assert.equal(e.hashed_password, undefined, who);
  }
  assert.equal((await engine.search({ query: 'hashed_password:"{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g="' })).total, 1);
  assert.equal((await engine.search({ query: 'password:"{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g="' })).total, 0, 'not indexed as a password');
});

test('an extended INSERT far over the line cap is read row by row', async () => {
  // One line of about 2.6 MB (the line cap is 1 MiB) holding 30,000 rows.
  const rows = Array.from({ length: 30_000 }, (_, i) => `(${i},'bulk${i}@example.com','pw${i}','${'x'.repeat(40)}')`);
  writeFileSync(join(dir, 'bulk.sql'), `CREATE TABLE \`bulk\` (\`id\` int, \`email\` varchar(80), \`password\` varchar(80), \`bio\` text);\nINSERT INTO \`bulk\` VALUES ${rows.join(',')};\n`);
  const r = await ingest(['--well', 'Bulk', '--max-segments', '0', join(dir, 'bulk.sql')]);
  assert.equal(r.code, 0, r.err + r.out);
  assert.match(r.out, /records: +30,000 /);
  assert.match(r.out, /bad lines: +0/);
  await engine.refresh();
  assert.deepEqual((await one('email:bulk29999@example.com')).password, ['pw29999']);
});
