/**
 * Password digests for the search guide's hashing helper, computed in the browser: the
 * password never leaves the page. SHA-* come from WebCrypto; MD5, which WebCrypto lacks,
 * comes from @noble/hashes (audited, dependency-free, and already in the tree through
 * otpauth), checked against RFC 1321's test vectors in
 * server/test/dashboard/docs-examples.test.ts. No DOM types: the server's tests import this
 * module too.
 */
import { md5 as nobleMd5 } from '@noble/hashes/legacy.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** MD5 of `bytes`, as lower-case hex. */
export function md5(bytes: Uint8Array): string {
  return bytesToHex(nobleMd5(bytes));
}

/** Base64 of the bytes (standard alphabet, padded). */
export function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export interface PasswordDigests {
  md5: string;
  sha1: string;
  sha256: string;
  sha512: string;
  base64: string;
}

async function sha(algorithm: 'SHA-1' | 'SHA-256' | 'SHA-512', bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  return bytesToHex(new Uint8Array(await crypto.subtle.digest(algorithm, bytes)));
}

/** Every form a password takes in leaked data, from its UTF-8 bytes. */
export async function passwordDigests(password: string): Promise<PasswordDigests> {
  const bytes = new TextEncoder().encode(password);
  const [sha1, sha256, sha512] = await Promise.all([sha('SHA-1', bytes), sha('SHA-256', bytes), sha('SHA-512', bytes)]);
  return { md5: md5(bytes), sha1, sha256, sha512, base64: base64(bytes) };
}
