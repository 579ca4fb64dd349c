import type { Hono } from 'hono';
import { nulAt } from '../../lib/nul.ts';
import type { OAuthProvider } from '../../oauth/oauth-provider.ts';
import { InvalidClientMetadataError } from '../../oauth/oauth-error.ts';
import type { HttpEnv } from '../http/http-env.ts';
import { noStoreJson, oauthErrorResponse } from './oauth-http.ts';

/** `POST /oauth/register` — RFC 7591 dynamic client registration. */
export function registerRegisterRoute(app: Hono<HttpEnv>, oauth: OAuthProvider): void {
  app.post('/oauth/register', async (c) => {
    try {
      const body: unknown = await c.req.json().catch(() => {
        throw new InvalidClientMetadataError('The body must be a JSON object.');
      });
      const nul = nulAt(body);
      if (nul !== undefined)
        throw new InvalidClientMetadataError(`${nul || 'The body'} holds a NUL character (U+0000).`);
      const { client, clientSecret } = await oauth.clients.register(body);
      return noStoreJson(
        c,
        {
          client_id: client.clientId,
          ...(clientSecret !== null && { client_secret: clientSecret, client_secret_expires_at: 0 }),
          client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
          client_name: client.clientName,
          redirect_uris: client.redirectUris,
          token_endpoint_auth_method: client.tokenEndpointAuthMethod,
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          scope: oauth.config.scopes.join(' '),
        },
        201,
      );
    } catch (e) {
      const res = oauthErrorResponse(e);
      if (res !== undefined) return res;
      throw e;
    }
  });
}
