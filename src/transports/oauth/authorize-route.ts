import { html } from 'hono/html';
import type { Hono } from 'hono';
import type { OAuthProvider } from '../../oauth/oauth-provider.ts';
import type { HttpEnv } from '../http/http-env.ts';
import { notice, page } from '../web/layout.ts';

/**
 * `GET /oauth/authorize`: validates the request and parks it; the person then signs in (if needed) and decides
 * on the consent page. Untrusted client or redirect URI → an error page, never a redirect.
 */
export function registerAuthorizeRoute(app: Hono<HttpEnv>, oauth: OAuthProvider): void {
  app.get('/oauth/authorize', async (c) => {
    const outcome = await oauth.authorization.start(c.req.query());
    c.header('Cache-Control', 'no-store');
    switch (outcome.kind) {
      case 'error_page':
        return c.html(
          page({
            title: 'Cannot connect',
            body: html`<h1>This app cannot connect</h1>
              ${notice('error', outcome.message)}
              <p>Nothing was shared. You can close this page.</p>`,
          }),
          400,
        );
      case 'redirect':
        return c.redirect(outcome.url, 302);
      case 'consent':
        return c.redirect(`/oauth/consent?request=${encodeURIComponent(outcome.request.id)}`, 303);
    }
  });
}
