/**
 * What the search screen suggests or shows can be searched as it is:
 * - on a field's tab, "turn Wildcard on and use *, as in *smith*" works: a leading
 *   wildcard there is that field's, as `username:*smith` is on All;
 * - a hashed password copied from a result row (shown apart from its salt, a `None`
 *   salt not at all) finds its record on the Hashed Password tab, with or without the salt.
 * Through the dashboard's route, as the screen sends it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { packSearch } from '../../src/common/obfuscation';
import { signedIn, startTestServer, type TestServer } from '../support/harness';
import { call } from '../support/helpers';

let server: TestServer;
let token = '';
before(async () => {
  server = await startTestServer();
  await server.ingest('Shown Well', [
    { email: 'agent.smith@example.org', username: 'agentsmith', hashed_password: '5f4dcc3b5aa765d61d8327deb882cf99:None' },
    { email: 'salty@example.org', username: 'salty', hashed_password: '$1$abcdefgh$0123456789abcdefghijkl:pepper' },
    { email: 'other@example.org', username: 'neo' },
  ]);
  ({ token } = await signedIn(server, { searchDays: 30 }));
});
after(() => server.close());

async function search(query: string, type: string, wildcard = false) {
  const reply = await call(server.url, 'POST', '/search', { token, body: packSearch({ query, type, page: 1, regex: false, wildcard, deduplicate: true }) });
  return { status: reply.status, body: reply.body, emails: ((reply.body?.results ?? []) as { email?: string[] }[]).map((r) => r.email?.[0]) };
}

test('*smith on the Username tab with Wildcard on finds what username:*smith finds on All', async () => {
  const onTab = await search('*smith', 'username', true);
  assert.equal(onTab.status, 200, JSON.stringify(onTab.body));
  assert.deepEqual(onTab.emails, ['agent.smith@example.org']);
  assert.deepEqual((await search('username:*smith', 'all', true)).emails, onTab.emails);
  assert.deepEqual((await search('*smit*', 'username', true)).emails, ['agent.smith@example.org']);
  // On All with no field named it is still refused, saying how.
  const all = await search('*smith', 'all', true);
  assert.equal(all.status, 400);
  assert.match(all.body.error, /name a field first/);
});

test('a hashed password as a row shows it (hash alone, or with its salt) finds its record', async () => {
  assert.deepEqual((await search('5f4dcc3b5aa765d61d8327deb882cf99', 'hashed_password')).emails, ['agent.smith@example.org']);
  assert.deepEqual((await search('$1$abcdefgh$0123456789abcdefghijkl', 'hashed_password')).emails, ['salty@example.org']);
  assert.deepEqual((await search('$1$abcdefgh$0123456789abcdefghijkl:pepper', 'hashed_password')).emails, ['salty@example.org']);
  assert.deepEqual((await search('5f4dcc3b5aa765d61d8327deb882cf99', 'all')).emails, ['agent.smith@example.org'], 'pasted on All');
});
