import type { Hono } from 'hono';
import type { OAuthProvider } from '../../oauth/oauth-provider.ts';
import { InvalidRequestError, UnsupportedGrantTypeError } from '../../oauth/oauth-error.ts';
import type { HttpEnv } from '../http/http-env.ts';
import {
  clientCredentials,
  formBody,
  noStoreJson,
  oauthErrorResponse,
  refuseMalformed,
} from './oauth-http.ts';

/** `POST /oauth/token` — authorization_code (PKCE, redirect_uri, resource checked) and refresh_token (rotating). */
export function registerTokenRoute(app: Hono<HttpEnv>, oauth: OAuthProvider): void {
  app.post('/oauth/token', async (c) => {
    // Before anything that waits (the body, the client's lookup): a refresh received before another presentation of
    // its token was rotated is that one's duplicate (decision 0041).
    const receivedAt = oauth.clock.now();
    const form = await formBody(c);
    const creds = clientCredentials(c, form);
    try {
      refuseMalformed(form);
      const grantType = form['grant_type'];
      if (grantType === undefined)
        throw new InvalidRequestError('grant_type is required (application/x-www-form-urlencoded body).');
      const client = await oauth.clients.authenticate(creds);
      const p = (k: string) => form[k];
      if (grantType === 'authorization_code') {
        return noStoreJson(
          c,
          await oauth.tokens.exchangeCode(
            client,
            withDefined({
              code: p('code'),
              codeVerifier: p('code_verifier'),
              redirectUri: p('redirect_uri'),
              resource: p('resource'),
            }),
          ),
        );
      }
      if (grantType === 'refresh_token') {
        return noStoreJson(
          c,
          await oauth.tokens.refresh(
            client,
            withDefined({ refreshToken: p('refresh_token'), resource: p('resource'), scope: p('scope') }),
            receivedAt,
          ),
        );
      }
      throw new UnsupportedGrantTypeError('Supported grant types: authorization_code, refresh_token.');
    } catch (e) {
      const res = oauthErrorResponse(e, { basicAuthUsed: creds.basic });
      if (res !== undefined) return res;
      throw e;
    }
  });
}

/** Drops undefined values so optional parameters stay absent under exactOptionalPropertyTypes. */
export function withDefined<T extends Record<string, string | undefined>>(o: T): { [K in keyof T]?: string } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: string;
  };
}
