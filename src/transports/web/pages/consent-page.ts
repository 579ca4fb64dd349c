import { passwordClient } from '../password-client.ts';
import type { WebDeps } from '../web-deps.ts';
import { html } from 'hono/html';
import type { Hono } from 'hono';
import { isLoopbackOnly } from '../../../oauth/client/redirect-policy.ts';
import { formFields } from '../form.ts';
import { csrfField, notice, page } from '../layout.ts';
import { requireSignIn, signedInAccount } from '../session.ts';
import type { WebEnv } from '../web-env.ts';

/**
 * The consent page: who is asking (client name, where it will send the code, a warning when that is only this
 * computer), what it may do, and Approve/Deny. The decision is a CSRF-protected POST; the redirect that follows
 * carries `code` or `error`, `state` and `iss`.
 */
export function registerConsentPage(app: Hono<WebEnv>, deps: WebDeps): void {
  const { oauth } = deps;
  const gone = page({
    title: 'Request expired',
    body: html`<h1>This request has expired</h1>
      ${notice('error', 'Start connecting again from your app.')}`,
  });

  app.get('/oauth/consent', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const found = await oauth.authorization.pending(c.req.query('request') ?? '');
    if (found === undefined) return c.html(gone, 410);
    const { request, client } = found;
    const redirectHost = new URL(request.redirectUri).host || new URL(request.redirectUri).protocol;
    // Chrome applies form-action to the redirect after the POST, so the client's origin must be allowed here.
    c.set('formActionTarget', cspSource(request.redirectUri));
    return c.html(
      page({
        title: 'Connect an app',
        account,
        csrf: c.get('csrf'),
        body: html`<h1>Allow “${client.clientName}” to use your inboxes?</h1>
          <p>Signed in as <strong>${account.email}</strong>.</p>
          <p>
            The app will be sent back to
            <strong>${redirectHost}</strong>${client.clientUri === null ? '' : html` (${client.clientUri})`}.
          </p>
          ${
            isLoopbackOnly(client.redirectUris)
              ? notice(
                  'info',
                  'This app only runs on this computer (its address is 127.0.0.1 or localhost). Approve only if you just started it yourself.',
                )
              : ''
          }
          <h2>It will be able to</h2>
          <ul>
            <li>
              list your inboxes and read, search and tidy mail (archive, label, star, trash, spam — each
              change can be undone);
            </li>
            <li>write drafts. Sending or unsubscribing still needs your approval in the chat each time.</li>
          </ul>
          <p class="muted">
            It cannot see your password or API keys. You can disconnect it any time in Settings → Connected
            agents.
          </p>
          <form method="post" action="/oauth/consent">
            ${csrfField(c.get('csrf'))}
            <input type="hidden" name="request" value="${request.id}" />
            <button type="submit" name="decision" value="approve">Allow</button>
            <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
          </form>`,
      }),
    );
  });

  app.post('/oauth/consent', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const f = await formFields(c, 'request', 'decision');
    const url = await oauth.authorization.decide(
      f.request,
      account.id,
      f.decision === 'approve',
      passwordClient(c, deps),
    );
    if (url === undefined) return c.html(gone, 410);
    c.set('formActionTarget', cspSource(url));
    return c.redirect(url, 302);
  });
}

/** A CSP source for a redirect target: its origin, or its scheme for custom-scheme apps (cursor://…). */
function cspSource(uri: string): string {
  const u = new URL(uri);
  return u.origin === 'null' ? u.protocol : u.origin;
}
