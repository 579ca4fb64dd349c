// The one function of mailauth's untyped tools module we use: its DKIM key record lookup and checks (mailauth 7.1).
declare module 'mailauth/lib/tools.js' {
  /** Looks up and checks `name`'s key record (RFC 6376 §3.6.1, RFC 8463); throws when there is none usable. */
  export function getPublicKey(
    type: 'DKIM',
    name: string,
    minBitLength: number,
    resolver: (name: string, rrtype: string) => Promise<string[][]>,
    options?: { readonly strict?: boolean; readonly hashAlgo?: string },
  ): Promise<{ readonly publicKey: string; readonly keyType: string }>;
}
