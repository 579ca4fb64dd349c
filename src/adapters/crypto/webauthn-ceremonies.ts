import type * as SimpleWebAuthn from '@simplewebauthn/server';
import type { WebAuthnCeremonies } from '../../core/sessions/passkeys.ts';
import { LazyModule } from '../lazy-module.ts';

/**
 * Loaded at the first passkey ceremony, not at start (decision 0027): with its ASN.1 and certificate libraries it is
 * some 30 MB of memory and a third of a second — it had put the idle service over its 100 MB.
 */
const webauthn = new LazyModule<typeof SimpleWebAuthn>('@simplewebauthn/server');

/** ES256 and RS256, the two every platform authenticator offers (EdDSA is left out: few browsers verify it alike). */
const ALGORITHMS = [-7, -257];
/** A credential id as browsers send it: base64url, at most 1023 bytes (WebAuthn §5.1). */
const CREDENTIAL_ID = /^[A-Za-z0-9_-]{1,1366}$/;

const transportsOf = (t: readonly string[]) => t as SimpleWebAuthn.AuthenticatorTransportFuture[];

/**
 * The WebAuthn ceremonies over @simplewebauthn/server: discoverable credentials (the sign-in names no account),
 * user verification required (the passkey is the whole sign-in), no attestation asked (decision 0092). An answer
 * that is not one, or is malformed in any way, is refused — never thrown.
 */
export const webAuthnCeremonies: WebAuthnCeremonies = {
  async registrationOptions({ rp, userId, userName, challenge, exclude }) {
    return {
      ...(await webauthn.load().generateRegistrationOptions({
        rpName: rp.name,
        rpID: rp.id,
        userName,
        userID: new TextEncoder().encode(userId),
        challenge: Buffer.from(challenge, 'base64url'),
        attestationType: 'none',
        excludeCredentials: exclude.map((p) => ({
          id: p.credentialId,
          transports: transportsOf(p.transports),
        })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
        supportedAlgorithmIDs: ALGORITHMS,
        timeout: 5 * 60_000,
      })),
    };
  },

  async verifyRegistration(response, expect) {
    try {
      const r = await webauthn.load().verifyRegistrationResponse({
        response: response as SimpleWebAuthn.RegistrationResponseJSON,
        expectedChallenge: expect.challenge,
        expectedOrigin: expect.rp.origin,
        expectedRPID: expect.rp.id,
        requireUserVerification: true,
        supportedAlgorithmIDs: ALGORITHMS,
      });
      if (!r.verified) return undefined;
      const { credential } = r.registrationInfo;
      if (!CREDENTIAL_ID.test(credential.id)) return undefined;
      return {
        credentialId: credential.id,
        publicKey: credential.publicKey,
        counter: credential.counter,
        transports: (credential.transports ?? []).filter((t) => /^[a-z-]{1,20}$/.test(t)).slice(0, 8),
      };
    } catch {
      return undefined;
    }
  },

  async authenticationOptions({ rp, challenge }) {
    return {
      ...(await webauthn.load().generateAuthenticationOptions({
        rpID: rp.id,
        challenge: Buffer.from(challenge, 'base64url'),
        userVerification: 'required',
        timeout: 10 * 60_000,
      })),
    };
  },

  credentialIdOf(response) {
    const id = (response as { id?: unknown } | null)?.id;
    return typeof id === 'string' && CREDENTIAL_ID.test(id) ? id : undefined;
  },

  async verifyAuthentication(response, passkey, expect) {
    // The account the authenticator keeps the passkey for, when it says: the one that added it (WebAuthn §7.2 step 6).
    const handle = (response as { response?: { userHandle?: unknown } } | null)?.response?.userHandle;
    if (handle !== undefined && handle !== Buffer.from(passkey.accountId, 'utf8').toString('base64url'))
      return undefined;
    try {
      const r = await webauthn.load().verifyAuthenticationResponse({
        response: response as SimpleWebAuthn.AuthenticationResponseJSON,
        expectedChallenge: expect.challenge,
        expectedOrigin: expect.rp.origin,
        expectedRPID: expect.rp.id,
        credential: {
          id: passkey.credentialId,
          publicKey: new Uint8Array(passkey.publicKey),
          counter: passkey.counter,
          transports: transportsOf(passkey.transports),
        },
        requireUserVerification: true,
      });
      return r.verified ? { counter: r.authenticationInfo.newCounter } : undefined;
    } catch {
      return undefined;
    }
  },
};
