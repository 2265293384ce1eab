/**
 * The search guide teaches only queries that work: every example of
 * web/src/features/docs/lib/search-examples.ts goes through the dashboard's own checks
 * (applyModeSuffix, validateSearch), the engine's parser, and a real dashboard search
 * over a fixture that each example must find. Also: the guide's field list is the
 * engine's, and the hashing helper's MD5 passes RFC 1321's test vectors.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { FIELD_NAMES, validateQuery } from '../../../engine/index';
import { packSearch } from '../../src/common/obfuscation';
import { applyModeSuffix, isSearchType, validateSearch } from '../../src/common/search-rules';
import { engineType, searchMode } from '../../src/search/search-service';
import { GUIDE_EXAMPLE_RECORDS, GUIDE_EXAMPLE_WELL } from '../../../web/src/features/docs/lib/search-examples.fixture';
import { GUIDE_SECTIONS, SEARCH_EXAMPLES, SEARCHABLE_FIELDS, liveExampleHref } from '../../../web/src/features/docs/lib/search-examples';
import { md5, passwordDigests } from '../../../web/src/lib/hashes';
import { startTestServer, type TestServer } from '../support/harness';
import { call } from '../support/helpers';

/** The example as the search screen sends it, from its Live Example link. */
function asSent(href: string) {
  const url = new URL(href, 'http://dashboard.test');
  assert.equal(url.pathname, '/search');
  const typeParam = url.searchParams.get('type') ?? 'all';
  assert.ok(isSearchType(typeParam), `type ${typeParam}`);
  const { query, regex, wildcard, error } = applyModeSuffix({ query: url.searchParams.get('q') ?? '', regex: false, wildcard: false });
  return { query, type: typeParam, regex, wildcard, error };
}

describe('search guide examples', () => {
  test('every section has examples, and every example is accepted by the dashboard and the engine', async () => {
    assert.ok(GUIDE_SECTIONS.every((section) => section.examples.length > 0));
    assert.deepEqual(
      GUIDE_SECTIONS.map((section) => section.title),
      ['IP Address', 'Domain', 'Wildcard', 'Regex', 'Origin Matching', 'Field Matching', 'Mixing Operators'],
    );
    for (const example of SEARCH_EXAMPLES) {
      const sent = asSent(liveExampleHref(example));
      assert.equal(sent.error, undefined, example.query);
      assert.deepEqual(validateSearch(sent.query, sent.type, sent.wildcard), [], example.query);
      const parsed = await validateQuery({ query: sent.query, mode: searchMode(sent.regex, sent.wildcard), type: engineType(sent.type) });
      // A wildcard or regex example must carry its mode in the link, or it would run as exact.
      if (/[*?]/.test(sent.query) && !sent.regex) assert.equal(parsed.mode, 'wildcard', `${example.query} needs &wildcard`);
      if (example.query.includes('&database_name=')) assert.deepEqual(parsed.sources, [GUIDE_EXAMPLE_WELL.toLowerCase()]);
    }
  });

  test('the guide lists the engine\'s searchable fields', () => {
    assert.deepEqual(SEARCHABLE_FIELDS.map((field) => field.name), [...FIELD_NAMES]);
  });

  describe('against a server', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
      await server.ingest(GUIDE_EXAMPLE_WELL, GUIDE_EXAMPLE_RECORDS);
    });
    after(() => server.close());

    test('each example runs as a dashboard search and finds the fixture records it describes', async () => {
      const user = await server.createUser({ searchDays: 30 });
      const { token } = await server.login(user.email);
      for (const example of SEARCH_EXAMPLES) {
        const { query, type, regex, wildcard } = asSent(liveExampleHref(example));
        const reply = await call(server.url, 'POST', '/search', {
          token,
          body: packSearch({ query, type, page: 1, regex, wildcard, deduplicate: true }),
        });
        assert.equal(reply.status, 200, `${example.query}: ${JSON.stringify(reply.body)}`);
        assert.ok(reply.body.total_results > 0, `${example.query} finds something`);
      }
    });
  });
});

describe('hashing helper', () => {
  test('MD5 passes the RFC 1321 test suite (A.5)', () => {
    const vectors: [string, string][] = [
      ['', 'd41d8cd98f00b204e9800998ecf8427e'],
      ['a', '0cc175b9c0f1b6a831c399e269772661'],
      ['abc', '900150983cd24fb0d6963f7d28e17f72'],
      ['message digest', 'f96b697d7cb7938d525a2f31aaf161d0'],
      ['abcdefghijklmnopqrstuvwxyz', 'c3fcd3d76192e4007dfb496cca67e13b'],
      ['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 'd174ab98d277d9f5a5611c2c9f419d9f'],
      ['1234567890'.repeat(8), '57edf4a22be3c955ac49da2e2107b67a'],
    ];
    for (const [input, digest] of vectors) assert.equal(md5(new TextEncoder().encode(input)), digest, JSON.stringify(input));
  });

  test('MD5 agrees with node:crypto around the padding boundaries and on non-ASCII text', () => {
    for (let length = 0; length <= 130; length++) {
      const text = 'é✓x'.repeat(length).slice(0, length);
      const bytes = new TextEncoder().encode(text);
      assert.equal(md5(bytes), createHash('md5').update(bytes).digest('hex'), `length ${length}`);
    }
  });

  test('every digest of a password, from its UTF-8 bytes', async () => {
    for (const password of ['password', 'pässwörd 🔑']) {
      const bytes = Buffer.from(password, 'utf8');
      assert.deepEqual(await passwordDigests(password), {
        md5: createHash('md5').update(bytes).digest('hex'),
        sha1: createHash('sha1').update(bytes).digest('hex'),
        sha256: createHash('sha256').update(bytes).digest('hex'),
        sha512: createHash('sha512').update(bytes).digest('hex'),
        base64: bytes.toString('base64'),
      });
    }
    assert.equal((await passwordDigests('password')).md5, '5f4dcc3b5aa765d61d8327deb882cf99');
  });
});
