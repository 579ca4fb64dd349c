/**
 * One class per OAuth error code (RFC 6749 §4.1.2.1, §5.2; RFC 7591 §3.2.2; RFC 8707 §2), as atproto's
 * oauth-provider does. Transports map them once: a JSON body at the token endpoint, a redirect (with `iss`) at
 * the authorization endpoint, or an error page when the redirect target itself is not trusted.
 */
export abstract class OAuthError extends Error {
  abstract readonly code: string;
  readonly status: number = 400;
}

export class InvalidRequestError extends OAuthError {
  readonly code = 'invalid_request';
}
export class InvalidClientError extends OAuthError {
  readonly code = 'invalid_client';
  override readonly status = 401;
}
export class InvalidGrantError extends OAuthError {
  readonly code = 'invalid_grant';
}
export class UnsupportedGrantTypeError extends OAuthError {
  readonly code = 'unsupported_grant_type';
}
export class InvalidScopeError extends OAuthError {
  readonly code = 'invalid_scope';
}
export class InvalidTargetError extends OAuthError {
  readonly code = 'invalid_target';
}
export class InvalidRedirectUriError extends OAuthError {
  readonly code = 'invalid_redirect_uri';
}
export class InvalidClientMetadataError extends OAuthError {
  readonly code = 'invalid_client_metadata';
}
/** Contract §7: the account's plan does not allow agents right now (trial ended, payment failed). */
export class PaymentRequiredError extends OAuthError {
  readonly code = 'payment_required';
  override readonly status = 402;
}
