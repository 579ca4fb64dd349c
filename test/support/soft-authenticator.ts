import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

/**
 * A platform authenticator in software (WebAuthn §6, ES256, `none` attestation): it makes a passkey for a relying
 * party and signs assertions with it, so the service's ceremonies are tested byte for byte without a browser. The
 * browser's own authenticator (Chromium's virtual one) is the peer in test/e2e/passkeys-browser.test.ts.
 */
export class SoftAuthenticator {
  readonly credentialId = randomBytes(16).toString('base64url');
  private readonly key: KeyObject;
  private readonly cose: Buffer;
  private counter: number;
  userHandle = '';

  constructor(opts: { counter?: number } = {}) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.key = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    this.cose = cbor(
      new Map<number, unknown>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x ?? '', 'base64url')],
        [-3, Buffer.from(jwk.y ?? '', 'base64url')],
      ]),
    );
    this.counter = opts.counter ?? 0;
  }

  /** The answer to `navigator.credentials.create(options)`, as a browser serialises it. */
  register(
    options: Record<string, unknown>,
    at: { origin: string; flags?: number; rpId?: string },
  ): Record<string, unknown> {
    const rp = options['rp'] as { id: string };
    this.userHandle = (options['user'] as { id: string }).id;
    const clientData = clientDataJson('webauthn.create', options['challenge'] as string, at.origin);
    const id = Buffer.from(this.credentialId, 'base64url');
    const authData = Buffer.concat([
      sha256(Buffer.from(at.rpId ?? rp.id)),
      Buffer.from([at.flags ?? 0x45]), // UP, UV, AT
      u32(this.counter),
      Buffer.alloc(16), // AAGUID
      Buffer.from([id.length >> 8, id.length & 0xff]),
      id,
      this.cose,
    ]);
    const attestationObject = cbor(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: clientData.toString('base64url'),
        attestationObject: attestationObject.toString('base64url'),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  /** The answer to `navigator.credentials.get(options)`; the counter moves on unless told otherwise. */
  assert(
    options: Record<string, unknown>,
    at: { origin: string; flags?: number; counter?: number; rpId?: string; userHandle?: string },
  ): Record<string, unknown> {
    const rpId = at.rpId ?? (options['rpId'] as string);
    if (at.counter !== undefined) this.counter = at.counter;
    else if (this.counter > 0) this.counter += 1;
    const clientData = clientDataJson('webauthn.get', options['challenge'] as string, at.origin);
    const authData = Buffer.concat([
      sha256(Buffer.from(rpId)),
      Buffer.from([at.flags ?? 0x05]),
      u32(this.counter),
    ]);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), this.key);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: clientData.toString('base64url'),
        authenticatorData: authData.toString('base64url'),
        signature: signature.toString('base64url'),
        userHandle: at.userHandle ?? this.userHandle,
      },
      clientExtensionResults: {},
    };
  }
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest();
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const clientDataJson = (type: string, challenge: string, origin: string) =>
  Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));

/** CBOR (RFC 8949) for what an authenticator writes: integers, byte and text strings, maps. */
function cbor(value: unknown): Buffer {
  const head = (major: number, n: number) =>
    n < 24
      ? Buffer.from([(major << 5) | n])
      : n < 256
        ? Buffer.from([(major << 5) | 24, n])
        : Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (typeof value === 'string') {
    const b = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, b.length), b]);
  }
  if (value instanceof Map)
    return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
  throw new Error(`cbor: ${typeof value}`);
}
