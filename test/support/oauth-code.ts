import { pkceChallenge } from '../../src/lib/secret-token.ts';
import type { App } from '../../src/app.ts';
import type { WebClient } from './web-client.ts';

/** A redirect URI nothing listens on: the code is read from the consent's redirect, never followed. */
export const CODE_REDIRECT = 'http://127.0.0.1:9/callback';
/** The PKCE verifier every `approvedCode` uses; its challenge goes with the authorization request. */
export const CODE_VERIFIER = 'v'.repeat(64);

/** The dynamic registration `approvedCode` makes: a public client whose redirect URI is `CODE_REDIRECT`. */
export const REGISTRATION = {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ redirect_uris: [CODE_REDIRECT], token_endpoint_auth_method: 'none' }),
} as const;

/** The query of the authorization request `approvedCode` sends the person to, for `resource` (the service's `/mcp`). */
export const authorizeQuery = (clientId: string, resource: string): string =>
  new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: CODE_REDIRECT,
    code_challenge: pkceChallenge(CODE_VERIFIER),
    code_challenge_method: 'S256',
    resource,
  }).toString();

/**
 * What an MCP host does before its first token request: registers a public client (dynamic registration), sends
 * the person to the authorization endpoint, and the person — signed in as `web` — approves on the consent page.
 * Returns the client and the authorization code, for `resource` (the service's `/mcp`); the client registers
 * `clientName` as its name when given.
 */
export async function approvedCode(
  web: WebClient,
  resource: string,
  clientName?: string,
  consentFields: Record<string, string | readonly string[]> = {},
): Promise<{ clientId: string; code: string }> {
  const reg = await web.request(
    '/oauth/register',
    clientName === undefined
      ? REGISTRATION
      : {
          ...REGISTRATION,
          body: JSON.stringify({ ...(JSON.parse(REGISTRATION.body) as object), client_name: clientName }),
        },
  );
  const clientId = ((await reg.json()) as { client_id: string }).client_id;
  const consent =
    (await web.get(`/oauth/authorize?${authorizeQuery(clientId, resource)}`)).headers.get('location') ?? '';
  await web.get(consent);
  const done = await web.post('/oauth/consent', {
    request: new URL(consent, 'http://x').searchParams.get('request') ?? '',
    decision: 'approve',
    ...consentFields,
  });
  const code = new URL(done.headers.get('location') ?? '').searchParams.get('code') ?? '';
  if (code === '') throw new Error('the consent gave no authorization code');
  return { clientId, code };
}

/** The token request that redeems `approvedCode`'s code. */
export const codeGrant = (code: string, resource: string): Record<string, string> => ({
  grant_type: 'authorization_code',
  code,
  code_verifier: CODE_VERIFIER,
  redirect_uri: CODE_REDIRECT,
  resource,
});

/**
 * An OAuth agent of the person signed in as `web`, start to end: registered (named `clientName` when given), approved
 * on the consent page (with `consentFields`: what it may do, decision 0141), its code redeemed at the token endpoint.
 * Its access token for the service's `/mcp`.
 */
export async function oauthAccessToken(
  app: App,
  web: WebClient,
  clientName?: string,
  consentFields: Record<string, string | readonly string[]> = {},
): Promise<string> {
  const resource = `${app.config.baseUrl}/mcp`;
  const { clientId, code } = await approvedCode(web, resource, clientName, consentFields);
  const res = await app.fetch(
    new Request(`${app.config.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...codeGrant(code, resource), client_id: clientId }),
    }),
  );
  const token = ((await res.json()) as { access_token?: string }).access_token;
  if (token === undefined) throw new Error(`the token endpoint gave no access token (${String(res.status)})`);
  return token;
}
