/**
 * NTLM for the tests: MD4 of the UTF-16LE password, upper-case hex. MD4 is not in Node's
 * default OpenSSL provider, so it is written out here (RFC 1320), checked against known
 * digests in range.test.ts.
 */

const rotl = (x: number, n: number) => (x << n) | (x >>> (32 - n));
const f = (x: number, y: number, z: number) => (x & y) | (~x & z);
const g = (x: number, y: number, z: number) => (x & y) | (x & z) | (y & z);
const h = (x: number, y: number, z: number) => x ^ y ^ z;

/** One 64-byte block into the state [a, b, c, d]. */
function block(state: number[], x: number[]): void {
  let [a, b, c, d] = state as [number, number, number, number];
  for (const i of [0, 4, 8, 12]) {
    a = rotl((a + f(b, c, d) + x[i]!) | 0, 3);
    d = rotl((d + f(a, b, c) + x[i + 1]!) | 0, 7);
    c = rotl((c + f(d, a, b) + x[i + 2]!) | 0, 11);
    b = rotl((b + f(c, d, a) + x[i + 3]!) | 0, 19);
  }
  for (const i of [0, 1, 2, 3]) {
    a = rotl((a + g(b, c, d) + x[i]! + 0x5a827999) | 0, 3);
    d = rotl((d + g(a, b, c) + x[i + 4]! + 0x5a827999) | 0, 5);
    c = rotl((c + g(d, a, b) + x[i + 8]! + 0x5a827999) | 0, 9);
    b = rotl((b + g(c, d, a) + x[i + 12]! + 0x5a827999) | 0, 13);
  }
  for (const i of [0, 2, 1, 3]) {
    a = rotl((a + h(b, c, d) + x[i]! + 0x6ed9eba1) | 0, 3);
    d = rotl((d + h(a, b, c) + x[i + 8]! + 0x6ed9eba1) | 0, 9);
    c = rotl((c + h(d, a, b) + x[i + 4]! + 0x6ed9eba1) | 0, 11);
    b = rotl((b + h(c, d, a) + x[i + 12]! + 0x6ed9eba1) | 0, 15);
  }
  state[0] = (state[0]! + a) | 0;
  state[1] = (state[1]! + b) | 0;
  state[2] = (state[2]! + c) | 0;
  state[3] = (state[3]! + d) | 0;
}

export function md4(input: Buffer): Buffer {
  const length = Math.ceil((input.length + 9) / 64) * 64;
  const message = Buffer.alloc(length);
  input.copy(message);
  message[input.length] = 0x80;
  const bits = input.length * 8;
  message.writeUInt32LE(bits >>> 0, length - 8);
  message.writeUInt32LE(Math.floor(bits / 2 ** 32), length - 4);
  const state = [0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476];
  for (let offset = 0; offset < length; offset += 64) {
    block(state, Array.from({ length: 16 }, (_, i) => message.readInt32LE(offset + 4 * i)));
  }
  const out = Buffer.alloc(16);
  state.forEach((word, i) => out.writeInt32LE(word, 4 * i));
  return out;
}

/** The NTLM hash of a password, upper-case hex (32 digits). */
export function ntlm(password: string): string {
  return md4(Buffer.from(password, 'utf16le')).toString('hex').toUpperCase();
}
