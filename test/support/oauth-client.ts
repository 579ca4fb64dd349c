import type { OAuthClientMetadata, OAuthClientProvider } from '@modelcontextprotocol/client';

export const TEST_REDIRECT = 'http://127.0.0.1:8765/callback';

/** An OAuthClientProvider for the official SDK clients (v1 and v2 share the shape) that captures the browser step. */
export class TestOAuthProvider implements OAuthClientProvider {
  creds = new Map<string, unknown>();
  tokensValue: { access_token: string; refresh_token?: string | undefined } | undefined;
  verifier: string | undefined;
  discovery: unknown;
  lastState: string | undefined;
  authUrl: URL | undefined;
  clientMetadataUrl?: string;

  get redirectUrl(): string {
    return TEST_REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'test-harness',
      redirect_uris: [TEST_REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    };
  }
  clientInformation(ctx?: { issuer: string }): never {
    return (ctx === undefined ? [...this.creds.values()][0] : this.creds.get(ctx.issuer)) as never;
  }
  saveClientInformation(info: unknown, ctx?: { issuer: string }): void {
    this.creds.set(ctx?.issuer ?? 'default', info);
  }
  tokens(): never {
    return this.tokensValue as never;
  }
  saveTokens(t: { access_token: string; refresh_token?: string | undefined }): void {
    this.tokensValue = t;
  }
  state(): string {
    this.lastState = crypto.randomUUID();
    return this.lastState;
  }
  saveDiscoveryState(s: unknown): void {
    this.discovery = s;
  }
  discoveryState(): never {
    return this.discovery as never;
  }
  redirectToAuthorization(url: URL): void {
    this.authUrl = url;
  }
  saveCodeVerifier(v: string): void {
    this.verifier = v;
  }
  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no verifier');
    return this.verifier;
  }
}
