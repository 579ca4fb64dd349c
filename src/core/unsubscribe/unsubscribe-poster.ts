/**
 * Sends the one RFC 8058 request: `POST <url>` with the body `List-Unsubscribe=One-Click`, no cookies, no
 * credentials, no redirects followed, short timeouts, and only to a public address (the SSRF guard checks the
 * address actually dialled). Never throws for what the remote side does; the outcome says what happened.
 */
export interface UnsubscribePoster {
  post(url: string): Promise<PostOutcome>;
}

export type PostOutcome =
  /** The request was answered (any status; 2xx means done, RFC 8058 §3.2). */
  | { readonly kind: 'answered'; readonly status: number }
  /** Refused before any connection: not https, credentials in the URL, a private or unresolvable address. */
  | { readonly kind: 'refused'; readonly reason: string }
  /** The connection failed or timed out; the server may or may not have seen the request. */
  | { readonly kind: 'failed'; readonly reason: string }
  /** The demo inbox: the request was recorded, nothing left the service. */
  | { readonly kind: 'recorded' };
