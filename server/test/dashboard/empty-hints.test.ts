/** The search screen's hints for a search that found nothing (web/src/features/search/lib/empty-hints.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyHints } from '../../../web/src/features/search/lib/empty-hints';

const run = (query: string, type = 'all', wildcard = false, regex = false) => emptyHints({ query, type, wildcard, regex });

test('unquoted words, decorated phones, * without Wildcard, a part of a value on a field tab', () => {
  // A hash with its salt is found as shown: no hint sends it elsewhere.
  assert.deepEqual(run('5f4dcc3b5aa765d61d8327deb882cf99:xyz12'), []);
  assert.deepEqual(run('hashed_password:$1$abc$defghijk:salt'), []);
  assert.match(run('John Smith', 'name')[0]!, /in quotes: "John Smith"/);
  assert.deepEqual(run('"John Smith"', 'name').filter((h) => /quotes/.test(h)), []);
  assert.deepEqual(run('username:a AND email:b').filter((h) => /quotes/.test(h)), []);
  assert.deepEqual(run('+1 (555) 010-0100', 'phone'), ['Phone numbers are matched by their digits: search 15550100100.']);
  assert.match(run('phone:555-0100 22')[0]!, /search 555010022/);
  assert.match(run('*gmail.com', 'email').join(' '), /Wildcard on/);
  assert.deepEqual(run('*gmail.com', 'email', true), []);
  assert.match(run('smith', 'username').join(' '), /turn Wildcard on and use \*, as in \*smith\*/);
  assert.deepEqual(run('alice@example.com'), [], 'a plain term on All: nothing to say');
});
