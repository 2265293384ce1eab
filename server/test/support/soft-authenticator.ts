/**
 * A software WebAuthn authenticator for API tests: it makes passkeys (ES256, attestation
 * "none", user present and verified, discoverable: it keeps the user handle) and signs
 * assertions as a platform authenticator does, so the server's WebAuthn checks
 * (@simplewebauthn/server) run for real over HTTP. Browsers' own ceremony is covered in
 * Chromium (web/e2e/two-factor.test.ts). An assertion's fields can be changed afterwards to
 * play an attacker (the user handle is not covered by the signature).
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

type Cbor = number | string | Uint8Array | Map<Cbor, Cbor>;

function cborHead(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  if (n < 0x10000) {
    const b = Buffer.alloc(3);
    b[0] = (major << 5) | 25;
    b.writeUInt16BE(n, 1);
    return b;
  }
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

/** The CBOR (RFC 8949) of what WebAuthn needs: small integers, byte and text strings, maps. */
function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return Buffer.concat([cborHead(3, text.length), text]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([cborHead(2, value.length), Buffer.from(value)]);
  const parts = [cborHead(5, value.size)];
  for (const [k, v] of value) parts.push(cbor(k), cbor(v));
  return Buffer.concat(parts);
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();
const b64url = (data: Buffer) => data.toString('base64url');

/** Flags of authenticator data: user present, user verified, attested credential data included. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export interface SoftPasskey {
  credentialId: Buffer;
  privateKey: KeyObject;
  /** The user handle the relying party gave at registration (base64url), returned by assertions. */
  userHandle: string;
  counter: number;
}

/** What navigator.credentials.create() / get() would resolve to, as @simplewebauthn/browser sends it. */
export type WebAuthnJSON = {
  id: string;
  rawId: string;
  type: 'public-key';
  response: Record<string, unknown>;
  clientExtensionResults: Record<string, never>;
  authenticatorAttachment: 'platform';
};

export class SoftAuthenticator {
  /** `rp`: the relying party the server expects (relyingParty(config) in server/src/auth/two-factor.ts). */
  constructor(private readonly rp: { id: string; origin: string }) {}

  private clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.rp.origin, crossOrigin: false }), 'utf8');
  }

  /** A new passkey for registration options (POST /user/two-factor/passkeys/options), and the response to send. */
  register(options: { challenge: string; user: { id: string } }): { passkey: SoftPasskey; response: WebAuthnJSON } {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const coseKey = cbor(
      new Map<Cbor, Cbor>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const credentialId = randomBytes(32);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credentialId.length);
    const authData = Buffer.concat([sha256(this.rp.id), Buffer.from([UP | UV | AT]), Buffer.alloc(4), Buffer.alloc(16), idLength, credentialId, coseKey]);
    const attestationObject = cbor(
      new Map<Cbor, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    const passkey: SoftPasskey = { credentialId, privateKey, userHandle: options.user.id, counter: 0 };
    return {
      passkey,
      response: {
        id: b64url(credentialId),
        rawId: b64url(credentialId),
        type: 'public-key',
        response: {
          clientDataJSON: b64url(this.clientData('webauthn.create', options.challenge)),
          attestationObject: b64url(attestationObject),
          transports: ['internal'],
        },
        clientExtensionResults: {},
        authenticatorAttachment: 'platform',
      },
    };
  }

  /**
   * The passkey's assertion over authentication options' challenge, user verified, its
   * counter moved on. `userHandle` replaces the handle returned (null: none returned).
   */
  assert(passkey: SoftPasskey, options: { challenge: string }, change: { userHandle?: string | null } = {}): WebAuthnJSON {
    passkey.counter += 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(passkey.counter);
    const authData = Buffer.concat([sha256(this.rp.id), Buffer.from([UP | UV]), counter]);
    const clientData = this.clientData('webauthn.get', options.challenge);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), passkey.privateKey);
    const userHandle = change.userHandle === undefined ? passkey.userHandle : change.userHandle;
    return {
      id: b64url(passkey.credentialId),
      rawId: b64url(passkey.credentialId),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        ...(userHandle === null ? {} : { userHandle }),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}

/** The user handle the server gives an account's passkeys (the account id's UTF-8 bytes, base64url). */
export function userHandleOf(userId: string): string {
  return Buffer.from(userId, 'utf8').toString('base64url');
}
