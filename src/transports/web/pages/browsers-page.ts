import { html } from 'hono/html';
import type { Hono } from 'hono';
import { csrfField, notice, page, when } from '../layout.ts';
import { requireSignIn, signedInAccount } from '../session.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';

/**
 * Settings → Signed-in browsers (decision 0067): every browser with a live session on the account — what it said it
 * is, when it signed in, when it was last used — and one button that signs out all but this one.
 */
export function registerBrowsersPage(app: Hono<WebEnv>, deps: WebDeps): void {
  app.get('/settings/browsers', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const browsers = await deps.sessions.browsers(account, c.get('sessionToken') ?? '');
    const others = browsers.filter((b) => !b.current).length;
    const done = Number(c.req.query('signedOut') ?? 'NaN');
    return c.html(
      page({
        nonce: c.get('nonce'),
        title: 'Signed-in browsers',
        account,
        csrf: c.get('csrf'),
        body: html`<h1>Signed-in browsers</h1>
          ${
            Number.isInteger(done) && done >= 0
              ? notice('ok', `Signed out ${String(done)} other browser${done === 1 ? '' : 's'}.`)
              : ''
          }
          <p>
            Each browser signed in to ${account.email}. One you do not recognise: sign it out, and change your
            password.
          </p>
          <table>
            <thead>
              <tr>
                <th scope="col">Browser</th>
                <th scope="col">Signed in</th>
                <th scope="col">Last used</th>
              </tr>
            </thead>
            <tbody>
              ${browsers.map(
                (b) =>
                  html`<tr ${b.current ? html`data-current` : ''}>
                    <td>
                      ${b.userAgent ?? 'Unknown browser'}${b.current ? html` <strong>(this browser)</strong>` : ''}
                    </td>
                    <td>${when(b.createdAt)}</td>
                    <td>${when(b.lastSeenAt)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
          ${
            others === 0
              ? html`<p class="muted">No other browser is signed in.</p>`
              : html`<form method="post" action="/settings/browsers/sign-out-others">
                  ${csrfField(c.get('csrf'))}
                  <button type="submit">
                    Sign out the ${String(others)} other browser${others === 1 ? '' : 's'}
                  </button>
                </form>`
          }
          <p><a href="/settings/password">Change your password</a></p>`,
      }),
    );
  });

  app.post('/settings/browsers/sign-out-others', requireSignIn, async (c) => {
    const n = await deps.sessions.signOutOthers(signedInAccount(c), c.get('sessionToken') ?? '');
    return c.redirect(`/settings/browsers?signedOut=${String(n)}`, 303);
  });
}
