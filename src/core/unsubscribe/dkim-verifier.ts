import type { DkimSignature } from './one-click-policy.ts';

/**
 * Checks the DKIM signatures of a raw message (RFC 6376) against the signers' published keys.
 * `demo`: the message comes from the demo inbox, signed in this process with a key only the demo trusts;
 * never set it for a real mailbox (anyone could sign with a key the code knows).
 */
export interface DkimVerifier {
  verify(raw: Uint8Array, opts: { readonly demo: boolean }): Promise<DkimSignature[]>;
}
