// The k6 scripts pack sign-in and search bodies with loadtest/k6/pack.js (plain JavaScript,
// no TextEncoder or btoa); the server must unpack them, for every kind of character.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { obfuscate as serverObfuscate, unpackLogin, unpackSearch } from '../server/src/common/obfuscation';
import { obfuscate, packLogin, packSearch } from './k6/pack.js';

const TEXTS = ['', 'a', 'ab', 'abc', 'person4242@example42.com', 'pässwörd ✓ 🔑 \u0000 \uFEFF', 'x'.repeat(257)];

test('pack.js obfuscates byte for byte as the server does', () => {
  for (const text of [...TEXTS, 'lone \uD800 surrogate \uDC00']) {
    for (const nonce of ['n', 'abcdefghijklmnop', 'Z9'.repeat(16)]) assert.equal(obfuscate(text, nonce), serverObfuscate(text, nonce), `${JSON.stringify(text)} / ${nonce}`);
  }
});

test('the server unpacks what pack.js packs', () => {
  for (const text of TEXTS.filter((t) => t && !t.includes('\u0000'))) {
    const login = unpackLogin(packLogin({ email: `${text}@example.com`, password: text, remember: text.length % 2 === 0 }));
    assert.deepEqual(login, { email: `${text}@example.com`, password: text, remember: text.length % 2 === 0 });
    const search = unpackSearch(packSearch({ query: text, type: 'email', page: 3, wildcard: true }));
    assert.deepEqual(search, { query: text, type: 'email', page: 3, regex: false, wildcard: true, deduplicate: true });
  }
});

test('a NUL packed by pack.js is refused, as the request guard refuses it (reliability test 39)', () => {
  const text = TEXTS.find((t) => t.includes('\u0000'))!;
  // The refusal names the decoded value, so the client learns which field to fix.
  assert.throws(() => unpackLogin(packLogin({ email: 'a@example.com', password: text, remember: true })), { message: 'Invalid request: password must not contain NUL characters' });
  assert.throws(() => unpackSearch(packSearch({ query: text, type: 'email', page: 1 })), { message: 'Invalid request: query must not contain NUL characters' });
});

test('a changed scheme is noticed: a wrong checksum does not unpack', () => {
  const fields = packLogin({ email: 'a@example.com', password: 'pw', remember: true });
  assert.throws(() => unpackLogin({ ...fields, db2: '00000000' }));
});
