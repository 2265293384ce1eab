/**
 * Request-body obfuscation shared by the dashboard and the server.
 *
 * THIS IS OBFUSCATION, NOT SECURITY. Confidentiality comes from TLS and the server's
 * own checks. The scheme only keeps credentials and search text from being readable at a
 * glance in a request body (browser extensions, naive proxies, copied HAR files) and
 * keeps the field names of the public contract.
 * Anyone who reads this file can reverse it; that is expected.
 *
 * Scheme for one value: UTF-8 bytes, XOR with a keystream seeded by a per-request nonce
 * (symmetric), base64url, string reversal, then a character shift inside the base64url
 * alphabet. A checksum (FNV-1a over the plain values) lets the server reject mangled
 * payloads with a clear 400 instead of acting on garbage.
 *
 * Isomorphic: only TextEncoder/TextDecoder, btoa/atob and Math.random/crypto, which
 * Node 20 and every browser have.
 */

import { textProblem, textProblemMessage } from './text-rules';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const SHIFT = 23;
const NONCE_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const STATIC_KEY = 'leak-well/obfuscation/v1';
/** Encoded values above this length are refused before any work (bounded parsing). */
export const MAX_ENCODED_LENGTH = 4096;

/** A payload that does not decode, or decodes to text no store accepts (its message says which). */
export class ObfuscationError extends Error {
  constructor(message = 'Malformed request payload') {
    super(message);
    this.name = 'ObfuscationError';
  }
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** FNV-1a of the joined parts as 8 hex characters. */
export function checksum(...parts: string[]): string {
  return fnv1a(parts.join('\u0000')).toString(16).padStart(8, '0');
}

function keystream(nonce: string, length: number): Uint8Array {
  // xorshift32 seeded from the nonce and a static key.
  let state = fnv1a(STATIC_KEY + nonce) || 0x9e3779b9;
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    out[i] = state & 0xff;
  }
  return out;
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new ObfuscationError();
  const padded = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  let binary: string;
  try {
    binary = atob(padded);
  } catch {
    throw new ObfuscationError();
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function shift(text: string, by: number): string {
  let out = '';
  for (const ch of text) {
    const index = ALPHABET.indexOf(ch);
    if (index < 0) throw new ObfuscationError();
    out += ALPHABET[(index + by + ALPHABET.length) % ALPHABET.length];
  }
  return out;
}

function reverse(text: string): string {
  return [...text].reverse().join('');
}

/** A random token of `length` alphanumeric characters (nonces, padding, toast ids). */
export function randomToken(length = 16): string {
  const bytes = new Uint8Array(length);
  globalThis.crypto.getRandomValues(bytes);
  let out = '';
  for (const byte of bytes) out += NONCE_CHARS[byte % NONCE_CHARS.length];
  return out;
}

export function obfuscate(plain: string, nonce: string): string {
  const bytes = new TextEncoder().encode(plain);
  const key = keystream(nonce, bytes.length);
  for (let i = 0; i < bytes.length; i++) bytes[i] = bytes[i]! ^ key[i]!;
  return shift(reverse(toBase64Url(bytes)), SHIFT);
}

/**
 * Every decoded value passes here, whether it came straight out of a field or out of JSON
 * inside one (registration's `query`): a string with no NUL and no unpaired surrogate, the
 * request guard's rule (infra/text-input.ts) applied after decoding, which the guard cannot
 * see through (a `"\u0000"` inside the JSON would make an account that can never sign in).
 * `where` names the value in the refusal.
 */
function decodedText(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new ObfuscationError();
  const problem = textProblem(value);
  if (problem) throw new ObfuscationError(textProblemMessage(problem, where));
  return value;
}

export function deobfuscate(encoded: unknown, nonce: unknown, where = 'a field'): string {
  if (typeof encoded !== 'string' || typeof nonce !== 'string') throw new ObfuscationError();
  if (encoded.length > MAX_ENCODED_LENGTH || nonce.length > 64) throw new ObfuscationError();
  const bytes = fromBase64Url(reverse(shift(encoded, -SHIFT)));
  const key = keystream(nonce, bytes.length);
  for (let i = 0; i < bytes.length; i++) bytes[i] = bytes[i]! ^ key[i]!;
  let text: string;
  try {
    // ignoreBOM: a leading U+FEFF is part of what was typed (dropped, r2's check would fail).
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new ObfuscationError();
  }
  // Strict UTF-8 leaves no unpaired surrogate; a NUL is refused as the request guard refuses it.
  return decodedText(text, where);
}

function verify(expected: unknown, ...parts: string[]): void {
  if (typeof expected !== 'string' || expected !== checksum(...parts)) throw new ObfuscationError();
}

// ---------------------------------------------------------------------------
// Payloads. Field names are the contract; values are ours.

export interface LoginFields {
  db0: string; // email
  dba0: string; // password
  dbamod0: string; // nonce
  dbmod0: string; // remember flag ("1" or "0")
  db1: string; // client timestamp (ms), plain
  db2: string; // checksum
  db3: string; // padding, random
}
export interface LoginValues {
  email: string;
  password: string;
  remember: boolean;
}

export function packLogin(values: LoginValues): LoginFields {
  const nonce = randomToken();
  const remember = values.remember ? '1' : '0';
  const ts = String(Date.now());
  return {
    db0: obfuscate(values.email, nonce),
    dba0: obfuscate(values.password, nonce),
    dbamod0: nonce,
    dbmod0: obfuscate(remember, nonce),
    db1: ts,
    db2: checksum(values.email, values.password, remember, ts),
    db3: randomToken(12),
  };
}

export function unpackLogin(fields: LoginFields): LoginValues {
  const email = deobfuscate(fields.db0, fields.dbamod0, 'email');
  const password = deobfuscate(fields.dba0, fields.dbamod0, 'password');
  const remember = deobfuscate(fields.dbmod0, fields.dbamod0, 'remember');
  verify(fields.db2, email, password, remember, String(fields.db1));
  return { email, password, remember: remember === '1' };
}

export interface RegisterFields {
  query: string; // JSON {e, p}
  r0: string; // nonce
  r01: string; // checksum
  r02: string; // client timestamp
  r03: string; // ro code ("" or "1".."7")
  r04: string; // q value carried from the redirect
  entropy_modifier: string; // padding
  shift_matrix: string; // padding
}
export interface RegisterValues {
  email: string;
  password: string;
  ro: string;
  q: string;
}

export function packRegister(values: RegisterValues): RegisterFields {
  const nonce = randomToken();
  const ts = String(Date.now());
  return {
    query: obfuscate(JSON.stringify({ e: values.email, p: values.password }), nonce),
    r0: nonce,
    r01: checksum(values.email, values.password, ts),
    r02: ts,
    r03: values.ro,
    r04: values.q,
    entropy_modifier: randomToken(24),
    shift_matrix: randomToken(8),
  };
}

export function unpackRegister(fields: RegisterFields): RegisterValues {
  let parsed: unknown;
  try {
    parsed = JSON.parse(deobfuscate(fields.query, fields.r0));
  } catch (error) {
    throw error instanceof ObfuscationError ? error : new ObfuscationError();
  }
  const { e, p } = (parsed ?? {}) as { e?: unknown; p?: unknown };
  const email = decodedText(e, 'email');
  const password = decodedText(p, 'password');
  verify(fields.r01, email, password, String(fields.r02));
  return { email, password, ro: String(fields.r03 ?? ''), q: String(fields.r04 ?? '') };
}

export interface ForgotFields {
  ab: string; // email
  cd: string; // nonce
  efu: string; // checksum
}

export function packForgot(email: string): ForgotFields {
  const nonce = randomToken();
  return { ab: obfuscate(email, nonce), cd: nonce, efu: checksum(email) };
}

export function unpackForgot(fields: ForgotFields): { email: string } {
  const email = deobfuscate(fields.ab, fields.cd, 'email');
  verify(fields.efu, email);
  return { email };
}

export interface ResetFields {
  n: string; // reset key
  n01: string; // new password
  n01a: string; // nonce
  n01b: string; // checksum
}

export function packReset(values: { key: string; password: string }): ResetFields {
  const nonce = randomToken();
  return {
    n: obfuscate(values.key, nonce),
    n01: obfuscate(values.password, nonce),
    n01a: nonce,
    n01b: checksum(values.key, values.password),
  };
}

export function unpackReset(fields: ResetFields): { key: string; password: string } {
  const key = deobfuscate(fields.n, fields.n01a, 'key');
  const password = deobfuscate(fields.n01, fields.n01a, 'password');
  verify(fields.n01b, key, password);
  return { key, password };
}

export interface SearchFields {
  r0: string; // query
  r1: string; // search type
  r2: string; // 32-char nonce + obfuscated query + checksum
  page: number;
  regex: boolean;
  wildcard: boolean;
  deduplicate: boolean;
}
export interface SearchValues {
  query: string;
  type: string;
  page: number;
  regex: boolean;
  wildcard: boolean;
  deduplicate: boolean;
}

const SEARCH_NONCE_LENGTH = 32;

export function packSearch(values: SearchValues): SearchFields {
  const nonce = randomToken(SEARCH_NONCE_LENGTH);
  return {
    r0: obfuscate(values.query, nonce),
    r1: obfuscate(values.type, nonce),
    r2: nonce + '.' + checksum(values.query, values.type),
    page: values.page,
    regex: values.regex,
    wildcard: values.wildcard,
    deduplicate: values.deduplicate,
  };
}

export function unpackSearch(fields: SearchFields): SearchValues {
  if (typeof fields.r2 !== 'string' || fields.r2.length !== SEARCH_NONCE_LENGTH + 9) throw new ObfuscationError();
  const nonce = fields.r2.slice(0, SEARCH_NONCE_LENGTH);
  const query = deobfuscate(fields.r0, nonce, 'query');
  const type = deobfuscate(fields.r1, nonce, 'search type');
  verify(fields.r2.slice(SEARCH_NONCE_LENGTH + 1), query, type);
  return {
    query,
    type,
    page: fields.page,
    regex: fields.regex,
    wildcard: fields.wildcard,
    deduplicate: fields.deduplicate,
  };
}

export interface WhoisFields {
  search_type: string; // plain: one of WHOIS_TOOLS
  query: string; // obfuscated query text
  qk: string; // 32-char nonce + '.' + checksum
}

/** `POST /whois` body: the query travels as a token; the tool in clear. */
export function packWhois(values: { searchType: string; query: string }): WhoisFields {
  const nonce = randomToken(SEARCH_NONCE_LENGTH);
  return {
    search_type: values.searchType,
    query: obfuscate(values.query, nonce),
    qk: nonce + '.' + checksum(values.query, values.searchType),
  };
}

export function unpackWhois(fields: WhoisFields): { searchType: string; query: string } {
  if (typeof fields.qk !== 'string' || fields.qk.length !== SEARCH_NONCE_LENGTH + 9) throw new ObfuscationError();
  const nonce = fields.qk.slice(0, SEARCH_NONCE_LENGTH);
  const query = deobfuscate(fields.query, nonce, 'query');
  verify(fields.qk.slice(SEARCH_NONCE_LENGTH + 1), query, String(fields.search_type));
  return { searchType: String(fields.search_type), query };
}
