import type { Hono } from 'hono';
import { authorizationServerMetadata, protectedResourceMetadata } from '../../oauth/metadata.ts';
import type { OAuthConfig } from '../../oauth/oauth-config.ts';
import type { HttpEnv } from '../http/http-env.ts';

/** RFC 9728 (path-aware and root) and RFC 8414 discovery documents; public, cacheable for an hour, CORS-open. */
export function registerMetadataRoutes(app: Hono<HttpEnv>, config: OAuthConfig): void {
  const prm = protectedResourceMetadata(config);
  const asm = authorizationServerMetadata(config);
  const send = (body: unknown) =>
    new Response(JSON.stringify(body), {
      headers: {
        'content-type': 'application/json',
        'cache-control': 'public, max-age=3600',
        'access-control-allow-origin': '*',
      },
    });
  app.get('/.well-known/oauth-protected-resource/mcp', () => send(prm));
  app.get('/.well-known/oauth-protected-resource', () => send(prm));
  app.get('/.well-known/oauth-authorization-server', () => send(asm));
}
