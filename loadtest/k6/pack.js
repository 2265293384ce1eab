// Request-body obfuscation for k6 scripts: packLogin and packSearch of
// server/src/common/obfuscation.ts, in plain JavaScript without TextEncoder, btoa or
// crypto (which k6's runtime may lack). Obfuscation, not security (see that file).
// loadtest/k6-pack.test.ts checks that the server unpacks what this packs: if the scheme
// changes there, that test fails until this file follows.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const SHIFT = 23;
const NONCE_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const STATIC_KEY = 'leak-well/obfuscation/v1';

function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

function checksum(...parts) {
  return fnv1a(parts.join('\u0000')).toString(16).padStart(8, '0');
}

function utf8(text) {
  const bytes = [];
  for (const ch of text) {
    // A lone surrogate becomes U+FFFD, as TextEncoder does.
    const c = ch.length === 1 && ch.charCodeAt(0) >= 0xd800 && ch.charCodeAt(0) <= 0xdfff ? 0xfffd : ch.codePointAt(0);
    if (c < 0x80) bytes.push(c);
    else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return bytes;
}

function base64Url(bytes) {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((bytes.length - i) * 4) / 3));
    for (let j = 0; j < chars; j++) out += ALPHABET[(n >> (18 - 6 * j)) & 63];
  }
  return out;
}

function keystream(nonce, length) {
  let state = fnv1a(STATIC_KEY + nonce) || 0x9e3779b9;
  const out = [];
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    out.push(state & 0xff);
  }
  return out;
}

function shift(text, by) {
  let out = '';
  for (const ch of text) out += ALPHABET[(ALPHABET.indexOf(ch) + by + ALPHABET.length) % ALPHABET.length];
  return out;
}

export function randomToken(length = 16) {
  let out = '';
  for (let i = 0; i < length; i++) out += NONCE_CHARS[Math.floor(Math.random() * NONCE_CHARS.length)];
  return out;
}

export function obfuscate(plain, nonce) {
  const bytes = utf8(plain);
  const key = keystream(nonce, bytes.length);
  const mixed = bytes.map((byte, i) => byte ^ key[i]);
  return shift([...base64Url(mixed)].reverse().join(''), SHIFT);
}

/** Body of POST /authentication/login. */
export function packLogin({ email, password, remember }) {
  const nonce = randomToken();
  const flag = remember ? '1' : '0';
  const ts = String(Date.now());
  return {
    db0: obfuscate(email, nonce),
    dba0: obfuscate(password, nonce),
    dbamod0: nonce,
    dbmod0: obfuscate(flag, nonce),
    db1: ts,
    db2: checksum(email, password, flag, ts),
    db3: randomToken(12),
  };
}

/** Body of POST /search (dashboard). */
export function packSearch({ query, type, page = 1, regex = false, wildcard = false, deduplicate = true }) {
  const nonce = randomToken(32);
  return {
    r0: obfuscate(query, nonce),
    r1: obfuscate(type, nonce),
    r2: nonce + '.' + checksum(query, type),
    page,
    regex,
    wildcard,
    deduplicate,
  };
}
