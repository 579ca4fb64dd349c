import { eventOf, type Client, type SignInHistory } from '../../core/sessions/sign-in-history.ts';
import type { AccountId } from '../../core/accounts/account.ts';
import { EVERYTHING, type Allowed } from '../../core/auth/allowed.ts';
import type { Clock } from '../../lib/clock.ts';
import { newSecret, sha256Hex } from '../../lib/secret-token.ts';
import type { ClientManager } from '../client/client-manager.ts';
import type { OAuthClient } from '../client/client.ts';
import { redirectUriMatches } from '../client/redirect-policy.ts';
import type { OAuthConfig } from '../oauth-config.ts';
import type { GrantStore } from '../token/grant.ts';
import type { AuthorizationRequest, RequestStore } from './authorization-request.ts';

export type AuthorizeOutcome =
  /** The client or redirect URI is not trusted: show an error page, never redirect (OAuth 2.1 §4.1.2.1). */
  | { readonly kind: 'error_page'; readonly message: string }
  /** A trusted redirect carrying an OAuth error, `state` and `iss`. */
  | { readonly kind: 'redirect'; readonly url: string }
  | { readonly kind: 'consent'; readonly request: AuthorizationRequest; readonly client: OAuthClient };

/** RFC 7636 §4.1: 43 to 128 unreserved characters — a code_verifier, and also the shape of an S256 code_challenge. */
export const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

/** `/oauth/authorize`: validates the request, holds it while the person decides, then issues a code. */
export class AuthorizationManager {
  private readonly deps: {
    clients: ClientManager;
    requests: RequestStore;
    grants: GrantStore;
    clock: Clock;
    config: OAuthConfig;
    history: SignInHistory;
  };
  constructor(deps: {
    clients: ClientManager;
    requests: RequestStore;
    grants: GrantStore;
    clock: Clock;
    config: OAuthConfig;
    history: SignInHistory;
  }) {
    this.deps = deps;
  }

  async start(q: Readonly<Record<string, string | undefined>>): Promise<AuthorizeOutcome> {
    const { config } = this.deps;
    const clientId = q['client_id'];
    if (clientId === undefined || clientId === '')
      return { kind: 'error_page', message: 'The request names no client (client_id is missing).' };
    let client: OAuthClient | undefined;
    try {
      client = await this.deps.clients.resolve(clientId);
    } catch (e) {
      return { kind: 'error_page', message: `This client could not be verified: ${(e as Error).message}` };
    }
    // Registrations nothing names are removed (decision 0122); the client cannot learn it from here, the person can.
    if (client === undefined)
      return {
        kind: 'error_page',
        message:
          'This client is not registered here. A registration not used to sign in within a day, or whose sign-ins ended 30 days ago, is removed: remove this server from your agent and add it again, so that it registers anew.',
      };
    const redirectUri = q['redirect_uri'];
    if (redirectUri === undefined || !redirectUriMatches(redirectUri, client.redirectUris)) {
      return {
        kind: 'error_page',
        message: 'The redirect URI is missing or is not one this client registered.',
      };
    }
    // From here on the redirect target is trusted, so errors go back to the client.
    const state = q['state'] ?? null;
    const fail = (error: string, description: string): AuthorizeOutcome => ({
      kind: 'redirect',
      url: redirectWith(redirectUri, { error, error_description: description, state, iss: config.issuer }),
    });
    if (q['response_type'] !== 'code')
      return fail('unsupported_response_type', 'Only response_type=code is supported.');
    const challenge = q['code_challenge'];
    if (challenge === undefined || challenge === '')
      return fail(
        'invalid_request',
        'PKCE is required: send code_challenge with code_challenge_method=S256.',
      );
    if (q['code_challenge_method'] !== 'S256')
      return fail('invalid_request', 'Only code_challenge_method=S256 is supported; plain is not.');
    if (!PKCE_VALUE.test(challenge)) return fail('invalid_request', 'code_challenge is malformed.');
    const resource = q['resource'];
    if (resource === undefined || resource === '')
      return fail('invalid_target', `resource is required: ${config.resource}`);
    if (!sameResource(resource, config.resource))
      return fail('invalid_target', `This server only issues tokens for ${config.resource}.`);
    const requested = (q['scope'] ?? '').split(' ').filter((s) => s !== '');
    const scope = requested.length === 0 ? [...config.scopes] : requested;
    if (!scope.every((s) => config.scopes.includes(s)))
      return fail('invalid_scope', `Supported scope: ${config.scopes.join(' ')}.`);

    const now = this.deps.clock.now();
    const request: AuthorizationRequest = {
      id: newSecret('req_', 32),
      clientId: client.clientId,
      redirectUri,
      state,
      codeChallenge: challenge,
      scope,
      resource: config.resource,
      createdAt: now,
      expiresAt: new Date(now.getTime() + config.requestTtlMs),
    };
    await this.deps.requests.save(request);
    return { kind: 'consent', request, client };
  }

  async pending(id: string): Promise<{ request: AuthorizationRequest; client: OAuthClient } | undefined> {
    const request = await this.deps.requests.get(id, this.deps.clock.now());
    if (request === undefined) return undefined;
    const client = await this.deps.clients.resolve(request.clientId).catch(() => undefined);
    return client && { request, client };
  }

  /**
   * The person's answer; the request is used once. Returns the URL to send the browser to. `allowed`: what the person
   * allowed the agent beyond reading (decision 0141), and where (0142).
   */
  async decide(
    id: string,
    accountId: AccountId,
    approve: boolean,
    client: Client,
    allowed: Allowed = EVERYTHING,
  ): Promise<string | undefined> {
    const { config, clock } = this.deps;
    const request = await this.deps.requests.get(id, clock.now());
    if (request === undefined || !(await this.deps.requests.take(id))) return undefined;
    if (!approve) {
      return redirectWith(request.redirectUri, {
        error: 'access_denied',
        error_description: 'The person declined.',
        state: request.state,
        iss: config.issuer,
      });
    }
    const code = newSecret('itac_', 43);
    const now = clock.now();
    await this.deps.grants.saveCode({
      codeHash: sha256Hex(code),
      clientId: request.clientId,
      accountId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      scope: request.scope,
      resource: request.resource,
      createdAt: now,
      expiresAt: new Date(now.getTime() + config.codeTtlMs),
      ...allowed,
    });
    // A new way in for an agent, as an API key is: the person sees it in their sign-in history.
    await this.deps.history.record(eventOf(accountId, 'agent_connected', now, client));
    return redirectWith(request.redirectUri, { code, state: request.state, iss: config.issuer });
  }
}

/** RFC 8707 resource equality, tolerating only the case of scheme and host (as the MCP spec asks). */
export function sameResource(given: string, ours: string): boolean {
  try {
    const a = new URL(given);
    const b = new URL(ours);
    return a.href === b.href && a.hash === '' && given.length === ours.length;
  } catch {
    return false;
  }
}

function redirectWith(uri: string, params: Record<string, string | null>): string {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== null) u.searchParams.set(k, v);
  return u.toString();
}
