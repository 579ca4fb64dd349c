import type { Clock } from '../../lib/clock.ts';
import { newSecret, sha256Hex, timingSafeEqualStrings } from '../../lib/secret-token.ts';
import { InvalidClientError, InvalidClientMetadataError, InvalidRedirectUriError } from '../oauth-error.ts';
import type { ClientAuthMethod, ClientMetadataFetcher, ClientStore, OAuthClient } from './client.ts';
import { isAllowedRedirectUri } from './redirect-policy.ts';

export interface RegistrationResult {
  readonly client: OAuthClient;
  readonly clientSecret: string | null;
}

const METADATA_DOCUMENT_TTL_MS = 3_600_000;
const AUTH_METHODS: readonly ClientAuthMethod[] = ['none', 'client_secret_post', 'client_secret_basic'];

/** Dynamic registration (RFC 7591), Client ID Metadata Documents, and client authentication. */
export class ClientManager {
  private readonly deps: {
    store: ClientStore;
    fetcher: ClientMetadataFetcher;
    clock: Clock;
    redirectAllowlist: readonly string[];
  };
  constructor(deps: {
    store: ClientStore;
    fetcher: ClientMetadataFetcher;
    clock: Clock;
    redirectAllowlist: readonly string[];
  }) {
    this.deps = deps;
  }

  /** RFC 7591 §2: unknown metadata (e.g. `application_type`) is tolerated and ignored. */
  async register(raw: unknown): Promise<RegistrationResult> {
    const meta = asObject(raw, 'The registration request must be a JSON object.');
    const redirectUris = this.redirectUris(meta['redirect_uris']);
    const method = meta['token_endpoint_auth_method'] ?? 'client_secret_basic';
    if (typeof method !== 'string' || !AUTH_METHODS.includes(method as ClientAuthMethod)) {
      throw new InvalidClientMetadataError(
        'token_endpoint_auth_method must be none, client_secret_post or client_secret_basic.',
      );
    }
    const grantTypes = meta['grant_types'] ?? ['authorization_code'];
    if (
      !Array.isArray(grantTypes) ||
      !grantTypes.every((g) => g === 'authorization_code' || g === 'refresh_token')
    ) {
      throw new InvalidClientMetadataError(
        'grant_types may only contain authorization_code and refresh_token.',
      );
    }
    const responseTypes = meta['response_types'] ?? ['code'];
    if (!Array.isArray(responseTypes) || !responseTypes.every((r) => r === 'code')) {
      throw new InvalidClientMetadataError('response_types may only contain code.');
    }
    const confidential = method !== 'none';
    const clientSecret = confidential ? newSecret('itcs_', 40) : null;
    const client: OAuthClient = {
      clientId: newSecret('itc_', 24),
      kind: 'dynamic',
      clientName: text(meta['client_name'], 100) ?? 'Unnamed MCP client',
      clientUri: httpsUrl(meta['client_uri']),
      redirectUris,
      tokenEndpointAuthMethod: method as ClientAuthMethod,
      secretHash: clientSecret === null ? null : sha256Hex(clientSecret),
      createdAt: this.deps.clock.now(),
    };
    await this.deps.store.save(client);
    return { client, clientSecret };
  }

  /** The client for an id: a registered one, or a metadata document fetched (and cached) by its URL. */
  async resolve(clientId: string): Promise<OAuthClient | undefined> {
    if (isMetadataDocumentUrl(clientId)) return this.fromMetadataDocument(clientId);
    return this.deps.store.get(clientId);
  }

  /**
   * Client authentication at the token and revocation endpoints (RFC 6749 §2.3): public clients identify
   * themselves by `client_id` alone (PKCE protects the code); confidential ones must present their secret the way
   * they registered.
   */
  async authenticate(input: {
    clientId: string | undefined;
    secret: string | undefined;
    method: ClientAuthMethod;
  }): Promise<OAuthClient> {
    if (input.clientId === undefined || input.clientId === '')
      throw new InvalidClientError('client_id is required.');
    const client = await this.resolve(input.clientId);
    if (client === undefined) throw new InvalidClientError('Unknown client.');
    if (client.tokenEndpointAuthMethod === 'none') {
      if (input.secret !== undefined)
        throw new InvalidClientError('This client is public and has no secret.');
      return client;
    }
    if (input.method !== client.tokenEndpointAuthMethod || input.secret === undefined) {
      throw new InvalidClientError(`This client authenticates with ${client.tokenEndpointAuthMethod}.`);
    }
    if (client.secretHash === null || !timingSafeEqualStrings(sha256Hex(input.secret), client.secretHash)) {
      throw new InvalidClientError('Client authentication failed.');
    }
    return client;
  }

  private redirectUris(value: unknown): string[] {
    if (
      !Array.isArray(value) ||
      value.length === 0 ||
      value.length > 10 ||
      !value.every((u) => typeof u === 'string')
    ) {
      throw new InvalidRedirectUriError('redirect_uris must be a non-empty list of URIs.');
    }
    for (const uri of value) {
      if (!isAllowedRedirectUri(uri, this.deps.redirectAllowlist)) {
        throw new InvalidRedirectUriError(
          `Redirect URI not allowed: ${uri}. Use http://127.0.0.1:<port>/callback, http://localhost:<port>/callback, or a known MCP host's callback.`,
        );
      }
    }
    return value;
  }

  private async fromMetadataDocument(url: string): Promise<OAuthClient | undefined> {
    const cached = await this.deps.store.get(url);
    // Re-read the document hourly: a host that changes its redirect URIs is picked up without a restart.
    if (
      cached !== undefined &&
      this.deps.clock.now().getTime() - cached.createdAt.getTime() < METADATA_DOCUMENT_TTL_MS
    )
      return cached;
    let doc: Record<string, unknown>;
    try {
      doc = asObject(
        await this.deps.fetcher.fetch(url),
        'The client metadata document is not a JSON object.',
      );
    } catch (e) {
      throw e instanceof InvalidClientMetadataError
        ? e
        : new InvalidClientError(
            `The client metadata document could not be fetched: ${(e as Error).message}`,
          );
    }
    // CIMD: the document must name itself; otherwise anyone could point a client_id at someone else's metadata.
    if (doc['client_id'] !== url)
      throw new InvalidClientMetadataError('The metadata document’s client_id must equal its URL.');
    const name = text(doc['client_name'], 100);
    if (name === undefined)
      throw new InvalidClientMetadataError('The metadata document must have a client_name.');
    const method = doc['token_endpoint_auth_method'] ?? 'none';
    if (method !== 'none')
      throw new InvalidClientMetadataError(
        'Metadata-document clients must be public (token_endpoint_auth_method "none").',
      );
    const client: OAuthClient = {
      clientId: url,
      kind: 'metadata_document',
      clientName: name,
      clientUri: httpsUrl(doc['client_uri']),
      redirectUris: this.redirectUris(doc['redirect_uris']),
      tokenEndpointAuthMethod: 'none',
      secretHash: null,
      createdAt: this.deps.clock.now(),
    };
    await this.deps.store.save(client);
    return client;
  }
}

/** An https URL with a path (not the bare origin) is a Client ID Metadata Document URL. */
export function isMetadataDocumentUrl(clientId: string): boolean {
  if (!clientId.startsWith('https://')) return false;
  try {
    const u = new URL(clientId);
    return u.pathname !== '/' && u.hash === '' && u.username === '' && u.password === '';
  } catch {
    return false;
  }
}

function asObject(v: unknown, message: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new InvalidClientMetadataError(message);
  return v as Record<string, unknown>;
}

/**
 * A name a stranger chose, as the person is shown it (the consent page, Connected agents, the activity log): no
 * control character, and no invisible or bidirectional one, which could turn the text after it around (decision 0106).
 */
function text(v: unknown, max: number): string | undefined {
  if (typeof v !== 'string') return undefined;
  const t = v
    .replace(/[\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/g, '')
    .trim();
  return t === '' ? undefined : t.slice(0, max);
}

/**
 * A client's home page as the consent page shows it: https, written as the URL parser reads it (an internationalised
 * host in its ASCII form, so `clаude.ai` with a Cyrillic a shows as `xn--clude-5ve.ai`), and with no user name or
 * password, which would make `https://claude.ai@evil.example/` read as claude.ai (decision 0106).
 */
function httpsUrl(v: unknown): string | null {
  if (typeof v !== 'string' || v.length > 2048) return null;
  try {
    const u = new URL(v);
    return u.protocol === 'https:' && u.username === '' && u.password === '' ? u.href : null;
  } catch {
    return null;
  }
}
