import type { Hono } from 'hono';
import { cors } from 'hono/cors';
import type { OAuthProvider } from '../../oauth/oauth-provider.ts';
import type { HttpEnv } from '../http/http-env.ts';
import { registerAuthorizeRoute } from './authorize-route.ts';
import { registerMetadataRoutes } from './metadata-routes.ts';
import { registerRegisterRoute } from './register-route.ts';
import { registerRevokeRoute } from './revoke-route.ts';
import { registerTokenRoute } from './token-route.ts';

/**
 * Browser-based MCP clients call these cross-origin; no cookies are involved, so a wildcard is safe. Registered before
 * the anonymous limits, so that a refusal reaches such a client as a 429 it can read, not a CORS failure.
 */
export function registerOAuthCors(app: Hono<HttpEnv>): void {
  for (const path of ['/oauth/register', '/oauth/token', '/oauth/revoke']) {
    app.use(
      path,
      cors({
        origin: '*',
        allowMethods: ['POST'],
        allowHeaders: ['Content-Type', 'Authorization'],
        maxAge: 600,
      }),
    );
  }
}

/** The authorization server's HTTP surface (the consent page lives with the other pages; CORS: `registerOAuthCors`). */
export function registerOAuthRoutes(app: Hono<HttpEnv>, oauth: OAuthProvider): void {
  registerMetadataRoutes(app, oauth.config);
  registerRegisterRoute(app, oauth);
  registerAuthorizeRoute(app, oauth);
  registerTokenRoute(app, oauth);
  registerRevokeRoute(app, oauth);
}
