// The query language's rejections (typed, user-fit), paging limits, matchWatches, and
// regression tests named after what they fixed.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Engine, EngineQueryError, ingestFiles, openEngine, validateQuery } from '../index';
import { tempDir } from './helpers';

let dir: string;
let cleanup: () => void;
let engine: Engine;
let segmentId: string;

before(async () => {
  ({ dir, cleanup } = tempDir('engine-query-'));
  const lines = [
    { email: 'John.Smith@Gmail.com', username: 'jsmith', password: 'hunter2', phone: '+1 555 0100' },
    { email: 'jane@example.com', username: 'jane_d', name: 'Jane  Doe', ip_address: '2001:0DB8::0001' },
    { email: 'manske@fake-box.com', username: 'manske', hashed_password: '5F4DCC3B5AA765D61D8327DEB882CF99' },
    { email: 'salted@example.org', username: 'salted', hashed_password: '8843d7f92416211de9ebb963ff4ce281:None' },
    { email: 'peppered@example.org', username: 'peppered', hashed_password: 'D033E22AE348AEB5660FC2140AEC35850C4DA997:pepper||v2' },
    { email: 'john.smith@gmail.com', username: 'jsmith', password: 'hunter2', phone: '15550100' },
  ];
  writeFileSync(join(dir, 'a.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n'));
  const r = await ingestFiles(join(dir, 'index'), { well: 'Alpha', files: [join(dir, 'a.jsonl')] });
  segmentId = r.segmentId ?? '';
  engine = await openEngine(join(dir, 'index'));
});

after(async () => {
  await engine?.close();
  cleanup?.();
});

const rejections: [string, 'exact' | 'wildcard' | 'regex', string, RegExp][] = [
  ['', 'exact', 'empty', /^Empty Query$/],
  ['abc', 'exact', 'too_short', /minimum 4 characters/],
  ['a'.repeat(201), 'exact', 'too_long', /^Query Too Long$/],
  ['*@gmail.com', 'wildcard', 'wildcard_start', /cannot start with a wildcard/],
  ['john*', 'wildcard', 'field_required', /need a field/],
  ['jsmith', 'regex', 'field_required', /need a field/],
  ['username:/(a)\\1/', 'regex', 'regex_unsupported', /Backreferences/],
  ['username:/(?<=a)b/', 'regex', 'regex_unsupported', /look-behind/],
  ['username:/a{1000}{1000}/', 'regex', 'regex_too_big', /too large/],
  ['username:/[a-/', 'regex', 'regex_syntax', /Invalid regular expression/],
  ['email:/john/', 'wildcard', 'mixed_modes', /cannot be mixed/],
  ['email:john*&regex', 'wildcard', 'mixed_modes', /cannot be used together/],
  ['&database_name=Alpha', 'exact', 'database_name_alone', /cannot be the only parameter/],
  ['email:"john', 'exact', 'syntax', /quote is not closed/],
  ['(email:john', 'exact', 'syntax', /parenthesis/],
  ['emial:john@x.com', 'exact', 'unknown_field', /Unknown field "emial"/],
];

test('every rejection is a typed EngineQueryError with a user-fit message, before any search', async () => {
  for (const [query, mode, code, message] of rejections) {
    await assert.rejects(validateQuery({ query, mode }), (e: unknown) => {
      assert.ok(e instanceof EngineQueryError, `${query}: ${String(e)}`);
      assert.equal(e.code, code, query);
      assert.match(e.message, message, query);
      return true;
    });
    await assert.rejects(engine.search({ query, mode }), (e: unknown) => e instanceof EngineQueryError && e.code === code);
  }
});

test('paging limits: size up to 10,000 and page * size <= 10,000', async () => {
  await engine.search({ query: 'jsmith', size: 10_000 });
  await engine.search({ query: 'jsmith', page: 2, size: 5_000 });
  for (const [page, size, code] of [[0, 10, 'bad_page'], [1, 10_001, 'bad_size'], [3, 5_000, 'too_deep']] as const) {
    await assert.rejects(engine.search({ query: 'jsmith', page, size }), (e: unknown) => e instanceof EngineQueryError && e.code === code);
  }
  // maxWindow (the public API's API_MAX_DEPTH) moves the depth, never past 50,000 nor the page size past 10,000.
  await engine.search({ query: 'jsmith', page: 3, size: 10_000, maxWindow: 30_000 });
  await engine.search({ query: 'jsmith', page: 50_000, size: 1, maxWindow: 50_000 });
  for (const [page, size, maxWindow, message] of [
    [4, 10_000, 30_000, 'page × size must not exceed 30,000.'],
    [50_001, 1, 60_000, 'page × size must not exceed 50,000.'],
    [1, 10_001, 50_000, 'size must be between 1 and 10,000.'],
  ] as const) {
    await assert.rejects(engine.search({ query: 'jsmith', page, size, maxWindow }), (e: unknown) => e instanceof EngineQueryError && e.message === message);
  }
});

test('client query forms: quotes, &, AND/OR, parentheses, escapes, &database_name=, &domain:, type', async () => {
  const total = async (query: string, mode: 'exact' | 'wildcard' | 'regex' = 'exact', extra: object = {}) =>
    (await engine.search({ query, mode, dedup: false, ...extra })).total;
  assert.equal(await total('email:"john.smith@gmail.com"'), 2);
  assert.equal(await total('JOHN.SMITH@GMAIL.COM'), 2, 'bare terms search every field, emails case-folded');
  assert.equal(await total('jsmith', 'exact', { type: 'username' }), 2);
  assert.equal(await total('jsmith', 'exact', { type: 'email' }), 0);
  assert.equal(await total('username:jsmith & password:hunter2'), 2);
  assert.equal(await total('username:jsmith AND password:nope'), 0);
  assert.equal(await total('username:manske OR username:jane_d'), 2);
  assert.equal(await total('(username:manske OR username:jane_d) & domain:example.com'), 1);
  assert.equal(await total('domain:fake-box.com'), 1, 'no tokeniser splits fake-box.com');
  assert.equal(await total('email:john*&domain:gmail.com', 'wildcard'), 2);
  assert.equal(await total('email:j?hn.smith@*', 'wildcard'), 2);
  assert.equal(await total('email:*smith*', 'wildcard'), 2);
  assert.equal(await total('email:*@gmail.com', 'wildcard'), 2, 'a field-qualified suffix wildcard is fine');
  assert.equal(await total('username:/^js.ith$/', 'regex'), 2);
  assert.equal(await total('username:js.ith', 'regex'), 2, 'bare regex without slashes');
  assert.equal(await total('email:john\\*', 'wildcard'), 0, 'escaped star is literal');
  assert.equal(await total('username:jsmith&database_name=Alpha'), 2);
  assert.equal(await total('username:jsmith&database_name=alpha'), 2);
  assert.equal(await total('username:jsmith&database_name=Beta'), 0);
  assert.equal(await total('username:jsmith', 'exact', { dedup: true }), 1, 'identical records share a dedup key');
  assert.equal(await total('phone:"+1 (555) 0100"'), 2, 'phones match as digits');
  assert.equal(await total('ip_address:2001:db8::1'), 1, 'IPv6 is canonical');
  assert.equal(await total('hashed_password:5f4dcc3b5aa765d61d8327deb882cf99'), 1, 'hashes are lower-case hex');
  assert.equal(await total('name:"jane doe"'), 1, 'quotes for spaces');
});

test('matchWatches returns the watches that match a segment, with record ids', async () => {
  const matches = await engine.matchWatches(segmentId, [
    { id: 'w1', field: 'email', value: 'JOHN.SMITH@gmail.com' },
    { id: 'w2', field: 'username', value: 'nobody' },
    { id: 'w3', field: 'phone', value: '+1-555-0100' },
    { id: 'w4', field: 'domain', value: 'fake-box.com' },
  ]);
  assert.deepEqual(matches.map((m) => [m.id, m.recordIds.length]), [['w1', 2], ['w3', 2], ['w4', 1]]);
  const entry = await engine.get(matches[0]?.recordIds[0] ?? '');
  assert.deepEqual(entry?.email, ['John.Smith@Gmail.com']);
  assert.equal(await engine.get('nope-0-0'), null);
});

// The dashboard's hint "turn Wildcard on and use *, as in *smith*" must work on a field's
// tab, not end in wildcard_start: a tab is a named field, as `username:*smith` on All.
test('regression: a leading wildcard works on a field tab (a default field), as field:*x does on All', async () => {
  const onTab = await engine.search({ query: '*smith', mode: 'wildcard', type: 'username' });
  const onAll = await engine.search({ query: 'username:*smith', mode: 'wildcard' });
  assert.deepEqual(onTab.entries.map((e) => e.id), onAll.entries.map((e) => e.id));
  assert.equal(onTab.total, 1);
  assert.equal((await engine.search({ query: '*mith*', mode: 'wildcard', type: 'username' })).total, 1);
  assert.equal((await engine.search({ query: '?smith', mode: 'wildcard', type: 'username' })).total, 1);
  // All, no field named: still refused, with the message that says how.
  await assert.rejects(engine.search({ query: '*smith', mode: 'wildcard' }), (e: unknown) => e instanceof EngineQueryError && e.code === 'wildcard_start');
});

// A hashed password is stored as hash:salt||extra and shown with its salt
// apart (a None salt not at all): searched as shown, on its tab, it finds its record.
test('regression: a hashed password found as a result shows it: the hash alone, with its salt, any hex case', async () => {
  const hits = async (query: string) => (await engine.search({ query, type: 'hashed_password' })).entries.map((e) => e.email?.[0]);
  assert.deepEqual(await hits('8843d7f92416211de9ebb963ff4ce281'), ['salted@example.org'], 'a None salt is not shown');
  assert.deepEqual(await hits('8843D7F92416211DE9EBB963FF4CE281'), ['salted@example.org']);
  assert.deepEqual(await hits('8843d7f92416211de9ebb963ff4ce281:None'), ['salted@example.org'], 'the whole stored value');
  assert.deepEqual(await hits('D033E22AE348AEB5660FC2140AEC35850C4DA997'), ['peppered@example.org']);
  assert.deepEqual(await hits('d033e22ae348aeb5660fc2140aec35850c4da997'), ['peppered@example.org'], 'lower case, stored upper');
  assert.deepEqual(await hits('D033E22AE348AEB5660FC2140AEC35850C4DA997:pepper'), ['peppered@example.org'], 'with its salt, without extra');
  assert.deepEqual(await hits('hashed_password:"5f4dcc3b5aa765d61d8327deb882cf99"'), ['manske@fake-box.com'], 'no salt: as before');
  // On All too, for a value that looks like a hash.
  const onAll = async (query: string) => (await engine.search({ query })).entries.map((e) => e.email?.[0]);
  assert.deepEqual(await onAll('8843d7f92416211de9ebb963ff4ce281'), ['salted@example.org']);
  assert.deepEqual(await onAll('D033E22AE348AEB5660FC2140AEC35850C4DA997:pepper'), ['peppered@example.org']);
  // A hash is not a prefix of another: a shorter value finds nothing.
  assert.deepEqual(await hits('8843d7f92416211de9ebb963ff4ce28'), []);
  assert.deepEqual(await hits('D033E22AE348AEB5660FC2140AEC35850C4DA997:pep'), []);
});

test('regression: a trailing OR is a syntax error, not a search for "OR"', async () => {
  await assert.rejects(validateQuery({ query: 'username:jsmith OR' }), (e: unknown) => e instanceof EngineQueryError && e.code === 'syntax');
});

test('regression: a leading & before database_name reports database_name_alone, not syntax', async () => {
  await assert.rejects(validateQuery({ query: '&database_name=Alpha' }), (e: unknown) => e instanceof EngineQueryError && e.code === 'database_name_alone');
});

test('regression: email:*@domain matches the email domain exactly, not a suffix of it nor another field', async () => {
  const total = async (query: string) => (await engine.search({ query, mode: 'wildcard', dedup: false })).total;
  assert.equal(await total('email:*@fake-box.com'), 1);
  assert.equal(await total('email:*@box.com'), 0, 'fake-box.com is not box.com');
  assert.equal(await total('email:*box.com'), 1, 'a plain suffix still matches inside the domain');
  assert.equal(await total('email:*@*.com'), 4);
});

test('regression: a remembered count follows removals and new segments (count cache)', async () => {
  const search = (page = 1) => engine.search({ query: 'email:*@*.com', mode: 'wildcard', dedup: false, size: 1, page, countCache: 0 });
  assert.equal((await search()).total, 4);
  assert.equal((await search(3)).total, 4, 'a later page reads the remembered counts');
  const jane = (await engine.search({ query: 'jane@example.com' })).entries[0]!;
  assert.equal(await engine.remove(jane.id), true);
  assert.equal((await search(3)).total, 3, 'a removal invalidates the remembered counts');
  writeFileSync(join(dir, 'b.jsonl'), JSON.stringify({ email: 'late@example.com', password: 'hunter2' }) + '\n');
  await ingestFiles(join(dir, 'index'), { well: 'Beta', files: [join(dir, 'b.jsonl')] });
  await engine.refresh();
  assert.equal((await search(3)).total, 4, 'a new segment adds its own count');
  assert.equal((await engine.search({ query: 'email:*@*.com', mode: 'wildcard', dedup: false, countCache: false })).total, 4);
});

test('regression: the one-pass count of an exact term past the page reads gaps of several bytes', async () => {
  // "common-pw" in the first 40 records, then in every 300th: after the page, gaps of 300
  // documents (two-byte varints) are counted from first-occurrence bits alone. Every
  // other spaced record repeats record 0 (same dedup key): misread gaps count them.
  const lines: string[] = [];
  const expected = { on: 0, off: 0 };
  for (let i = 0; i < 6000; i++) {
    let rec = { username: `gap_user_${i}`, password: `pw-${i}` };
    if (i < 40 || i % 300 === 0) {
      const repeat = i >= 40 && (i / 300) % 2 === 1;
      rec = { username: repeat ? 'gap_user_0' : `gap_user_${i}`, password: 'common-pw' };
      expected.off++;
      if (!repeat) expected.on++;
    }
    lines.push(JSON.stringify(rec));
  }
  // An index of its own: without tombstones, the counting loop is the one that runs.
  const own = tempDir('engine-gaps-');
  writeFileSync(join(own.dir, 'gaps.jsonl'), lines.join('\n') + '\n');
  await ingestFiles(join(own.dir, 'index'), { well: 'Gaps', files: [join(own.dir, 'gaps.jsonl')] });
  const gaps = await openEngine(join(own.dir, 'index'));
  try {
    for (const dedup of [true, false]) {
      const res = await gaps.search({ query: 'password:common-pw', size: 5, dedup, countCache: false });
      assert.equal(res.total, dedup ? expected.on : expected.off, `dedup=${dedup}`);
      assert.equal(res.entries.length, 5);
    }
    const last = await gaps.search({ query: 'password:common-pw', size: 10, page: Math.ceil(expected.on / 10), countCache: false });
    assert.equal(last.entries.length, expected.on % 10 || 10);
  } finally {
    await gaps.close();
    own.cleanup();
  }
});

test('email:*lit* finds the literal in local parts, in domains and in emails without @ (the local parts of the emails)', async () => {
  const own = tempDir('engine-local-');
  const recs = [
    { email: 'GmailFan@yahoo.com' }, // local part
    { email: 'john@gmail.com' }, // domain
    { email: 'nogmail-at-all' }, // no @: the whole value is the local part
    { email: 'x@y.com' },
    { email: 'mail@g.com' }, // "g" and "mail" apart: no match for *gmail*
  ];
  writeFileSync(join(own.dir, 'l.jsonl'), recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  await ingestFiles(join(own.dir, 'index'), { well: 'Local', files: [join(own.dir, 'l.jsonl')] });
  const e = await openEngine(join(own.dir, 'index'));
  try {
    const emails = async (query: string) =>
      (await e.search({ query, mode: 'wildcard', size: 20 })).entries.map((x) => x.email?.[0]).sort();
    assert.deepEqual(await emails('email:*gmail*'), ['GmailFan@yahoo.com', 'john@gmail.com', 'nogmail-at-all']);
    assert.deepEqual(await emails('email:*yahoo*'), ['GmailFan@yahoo.com']);
    assert.deepEqual(await emails('email:*l@g*'), ['mail@g.com'], 'a literal with @ spans both parts');
    assert.deepEqual(await emails('email:*zzz*'), []);
  } finally {
    await e.close();
    own.cleanup();
  }
});

test('searchApiText: public API entries as JSON text, raw_record only for law enforcement', async () => {
  const plain = await engine.search({ query: 'jsmith', size: 5 });
  for (const le of [false, true]) {
    const text = await engine.searchApiText({ query: 'jsmith', size: 5 }, le);
    assert.equal(text.total, plain.total);
    const entries = JSON.parse(text.entriesJson) as Array<Record<string, unknown>>;
    assert.deepEqual(entries.map((e) => e.id), plain.entries.map((e) => e.id));
    for (const [i, e] of entries.entries()) {
      const { raw_record, ...fields } = plain.entries[i]!;
      assert.deepEqual({ ...e, raw_record: undefined }, { ...fields, raw_record: undefined });
      assert.deepEqual(e.raw_record, le ? { le_only: true, unstructured: raw_record } : undefined);
    }
  }
});

test('searchApiReply: the whole public API reply as a Buffer, the same entries wherever the search runs', async () => {
  for (const le of [false, true]) {
    const text = await engine.searchApiText({ query: 'jsmith', size: 5 }, le);
    // Alone, a while after the last (run on the calling thread), and behind another call
    // (run on the engine's threads).
    await new Promise((resolve) => setTimeout(resolve, 2));
    const alone = await engine.searchApiReply({ query: 'jsmith', size: 5 }, le, 41.9);
    const behind = await Promise.all([engine.search({ query: 'jane@example.com' }), engine.searchApiReply({ query: 'jsmith', size: 5 }, le, 41.9)]);
    for (const body of [alone, behind[1]]) {
      assert.ok(Buffer.isBuffer(body));
      const reply = JSON.parse(body.toString('utf8')) as { balance: number; entries: unknown[]; took: string; total: number };
      assert.deepEqual(Object.keys(reply), ['balance', 'entries', 'took', 'total']);
      assert.equal(reply.balance, 41);
      assert.equal(reply.total, text.total);
      assert.deepEqual(reply.entries, JSON.parse(text.entriesJson));
      assert.match(reply.took, /^\d+(µs|ms)$/);
    }
  }
  // Wildcards (quick lane), regexes (heavy lane) and refusals answer as a search does, read
  // on the calling thread (alone) or on the lanes (behind another call, as under load).
  for (const behindAnother of [false, true]) {
    const reply = async (req: Parameters<Engine['searchApiReply']>[0]) => {
      await new Promise((resolve) => setTimeout(resolve, 2));
      if (!behindAnother) return engine.searchApiReply(req, false, 0);
      return (await Promise.all([engine.search({ query: 'jane@example.com' }), engine.searchApiReply(req, false, 0)]))[1];
    };
    const wild = JSON.parse((await reply({ query: 'username:jsm*', mode: 'wildcard', size: 10 })).toString()) as { total: number };
    assert.equal(wild.total, (await engine.search({ query: 'username:jsm*', mode: 'wildcard' })).total);
    const regex = JSON.parse((await reply({ query: 'username:/jsm.th/', mode: 'regex', size: 10 })).toString()) as { total: number };
    assert.equal(regex.total, (await engine.search({ query: 'username:/jsm.th/', mode: 'regex' })).total);
    assert.ok(regex.total > 0);
    await assert.rejects(reply({ query: 'abc', size: 5 }), (e: unknown) => e instanceof EngineQueryError && e.code === 'too_short');
    await assert.rejects(reply({ query: 'username:/(/', mode: 'regex', size: 5 }), EngineQueryError);
    await assert.rejects(reply({ query: 'jsmith', page: 50_000, size: 10_000 }), (e: unknown) => e instanceof EngineQueryError && e.code === 'too_deep');
  }
});
