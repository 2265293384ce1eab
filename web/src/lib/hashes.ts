/**
 * Password digests for the search guide's hashing helper, computed in the browser: the
 * password never leaves the page. SHA-* come from WebCrypto; MD5 (which WebCrypto lacks)
 * is RFC 1321, checked against its test vectors in server/test/dashboard/docs-examples.test.ts.
 * No DOM types: the server's tests import this module too.
 */

const toHex = (bytes: Uint8Array) => Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');

// RFC 1321 §3.4: per-round shift amounts and the table T[i] = floor(abs(sin(i + 1)) * 2^32).
const SHIFTS = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
const T = Array.from({ length: 64 }, (_, i) => Math.floor(Math.abs(Math.sin(i + 1)) * 2 ** 32) >>> 0);

/** MD5 of `bytes`, as lower-case hex. */
export function md5(bytes: Uint8Array): string {
  // Padding: a 1 bit, zeros to 56 mod 64 bytes, then the bit length as 64-bit little-endian.
  const padded = new Uint8Array((((bytes.length + 8) >>> 6) + 1) << 6);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  const bits = bytes.length * 8;
  view.setUint32(padded.length - 8, bits >>> 0, true);
  view.setUint32(padded.length - 4, Math.floor(bits / 2 ** 32), true);

  let a0 = 0x67452301;
  let b0 = 0xefcdab89;
  let c0 = 0x98badcfe;
  let d0 = 0x10325476;
  const m = new Array<number>(16);
  for (let block = 0; block < padded.length; block += 64) {
    for (let i = 0; i < 16; i++) m[i] = view.getUint32(block + i * 4, true);
    let a = a0;
    let b = b0;
    let c = c0;
    let d = d0;
    for (let i = 0; i < 64; i++) {
      const round = i >>> 4;
      let f: number;
      let g: number;
      if (round === 0) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (round === 1) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) & 15;
      } else if (round === 2) {
        f = b ^ c ^ d;
        g = (3 * i + 5) & 15;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) & 15;
      }
      const sum = (a + f + T[i]! + m[g]!) | 0;
      const shift = SHIFTS[round * 4 + (i & 3)]!;
      a = d;
      d = c;
      c = b;
      b = (b + ((sum << shift) | (sum >>> (32 - shift)))) | 0;
    }
    a0 = (a0 + a) | 0;
    b0 = (b0 + b) | 0;
    c0 = (c0 + c) | 0;
    d0 = (d0 + d) | 0;
  }
  const out = new DataView(new ArrayBuffer(16));
  [a0, b0, c0, d0].forEach((word, i) => out.setUint32(i * 4, word >>> 0, true));
  return toHex(new Uint8Array(out.buffer));
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
  return toHex(new Uint8Array(await crypto.subtle.digest(algorithm, bytes)));
}

/** Every form a password takes in leaked data, from its UTF-8 bytes. */
export async function passwordDigests(password: string): Promise<PasswordDigests> {
  const bytes = new TextEncoder().encode(password);
  const [sha1, sha256, sha512] = await Promise.all([sha('SHA-1', bytes), sha('SHA-256', bytes), sha('SHA-512', bytes)]);
  return { md5: md5(bytes), sha1, sha256, sha512, base64: base64(bytes) };
}
