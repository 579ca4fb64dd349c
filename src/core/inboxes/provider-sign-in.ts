/**
 * A mail provider's OAuth 2.0 sign-in (Google now; Microsoft later): the authorization-code flow with PKCE S256
 * (RFC 7636) run on the person's browser, ending in a refresh token this service keeps sealed. The adapter talks
 * to the provider; the core owns the state (single use, bound to account and inbox, short-lived).
 */
export interface ProviderSignIn {
  /** Where the person's browser is sent to sign in (the origin of the provider's sign-in pages). */
  readonly origin: string;
  /** The provider's authorization URL for this state and PKCE challenge, hinting the inbox's address. */
  authorizationUrl(p: { state: string; codeChallenge: string; loginHint: string }): Promise<string>;
  /**
   * Trades the code for tokens and learns the signed-in address. Throws `SignInError` when the provider refuses
   * (a used or expired code, a wrong verifier) or answers without a refresh token.
   */
  exchange(
    code: string,
    codeVerifier: string,
  ): Promise<{ refreshToken: string; email: string; name?: string }>;
  /** Revokes a refresh token at the provider (the person removed the inbox). Failures are the caller's to log. */
  revoke(refreshToken: string): Promise<void>;
}

/** The provider refused a sign-in step; `message` is safe to show (no token, no provider body). */
export class SignInError extends Error {
  override readonly name = 'SignInError';
}
