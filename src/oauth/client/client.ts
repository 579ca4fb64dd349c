export type ClientAuthMethod = 'none' | 'client_secret_post' | 'client_secret_basic';

/** A registered (RFC 7591) or metadata-document (CIMD) client. */
export interface OAuthClient {
  /** Generated for dynamic registration; the https URL itself for a Client ID Metadata Document. */
  readonly clientId: string;
  readonly kind: 'dynamic' | 'metadata_document';
  readonly clientName: string;
  readonly clientUri: string | null;
  readonly redirectUris: readonly string[];
  readonly tokenEndpointAuthMethod: ClientAuthMethod;
  /** SHA-256 of the secret for confidential clients. */
  readonly secretHash: string | null;
  readonly createdAt: Date;
}

export interface ClientStore {
  save(client: OAuthClient): Promise<void>;
  get(clientId: string): Promise<OAuthClient | undefined>;
  /**
   * The housekeeping sweep (decision 0122): removes the clients registered (a metadata document: fetched) before
   * `before` that no sign-in, code or waiting authorization request names — a registration never used to sign in, or
   * one whose sign-ins the sweep has removed. How many.
   */
  deleteUnused(before: Date): Promise<number>;
}

/** Fetches a Client ID Metadata Document; the adapter owns the SSRF guard, size/time limits and caching. */
export interface ClientMetadataFetcher {
  fetch(url: string): Promise<unknown>;
}
