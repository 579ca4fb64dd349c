import type { Hono } from 'hono';
import type { OAuthProvider } from '../../oauth/oauth-provider.ts';
import { InvalidRequestError } from '../../oauth/oauth-error.ts';
import type { HttpEnv } from '../http/http-env.ts';
import { clientCredentials, formBody, oauthErrorResponse, refuseMalformed } from './oauth-http.ts';

/**
 * `POST /oauth/revoke` — RFC 7009. Authenticated as the token endpoint is; 200 even for unknown or already
 * revoked tokens (the answer must not tell a caller whether a token existed).
 */
export function registerRevokeRoute(app: Hono<HttpEnv>, oauth: OAuthProvider): void {
  app.post('/oauth/revoke', async (c) => {
    const form = await formBody(c);
    const creds = clientCredentials(c, form);
    try {
      refuseMalformed(form);
      const token = form['token'];
      if (token === undefined || token === '') throw new InvalidRequestError('token is required.');
      const client = await oauth.clients.authenticate(creds);
      await oauth.tokens.revoke(client, token);
      return new Response(null, { status: 200, headers: { 'cache-control': 'no-store' } });
    } catch (e) {
      const res = oauthErrorResponse(e, { basicAuthUsed: creds.basic });
      if (res !== undefined) return res;
      throw e;
    }
  });
}
