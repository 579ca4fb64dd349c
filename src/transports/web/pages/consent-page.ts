import { passwordClient } from '../password-client.ts';
import type { WebDeps } from '../web-deps.ts';
import { html } from 'hono/html';
import type { Hono } from 'hono';
import { isLoopbackOnly } from '../../../oauth/client/redirect-policy.ts';
import { EVERYTHING } from '../../../core/auth/allowed.ts';
import { wholeAccount } from '../../../core/auth/inbox-reach.ts';
import { formFields } from '../form.ts';
import { allowedFieldsets, allowedFromForm } from '../allowed-field.ts';
import { csrfField, notice, page } from '../layout.ts';
import { requireSignIn, signedInAccount } from '../session.ts';
import type { WebEnv } from '../web-env.ts';

/**
 * The consent page: who is asking (client name, where it will send the code, a warning when that is only this
 * computer), what it may do and where — every power and every inbox offered, each of which the person may take away
 * (decisions 0141, 0142) — and
 * Approve/Deny. The decision is a CSRF-protected POST; the redirect that follows
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
    // An agent signing in again starts from what the person last let it do and where, not from everything
    // (decisions 0141, 0142).
    const [grants, inboxes] = await Promise.all([
      oauth.grants.listGrants(account.id),
      deps.inboxes.all(wholeAccount(account.id)),
    ]);
    const current = grants.find((g) => g.clientId === client.clientId);
    // Chrome applies form-action to the redirect after the POST, so the client's origin must be allowed here.
    c.set('formActionTarget', cspSource(request.redirectUri));
    return c.html(
      page({
        nonce: c.get('nonce'),
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
          <p class="muted">
            It cannot see your password or API keys. Sending and unsubscribing still need your approval each
            time. You can change what it may do, or disconnect it, any time in Settings → Connected agents.
          </p>
          <form method="post" action="/oauth/consent">
            ${csrfField(c.get('csrf'))}
            <input type="hidden" name="request" value="${request.id}" />
            ${allowedFieldsets(current ?? EVERYTHING, inboxes, 'consent', 'What it may do')}
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
      await allowedFromForm(c, () => deps.inboxes.all(wholeAccount(account.id))),
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
