import { html } from 'hono/html';
import type { Hono } from 'hono';
import { csrfField, notice, page, when } from '../layout.ts';
import { requireSignIn, signedInAccount } from '../session.ts';
import { passwordClient } from '../password-client.ts';
import { passwordMayBeKnown, type SignInEventKind } from '../../../core/sessions/sign-in-history.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';

/** Each event of the sign-in history in the person's words (decision 0091). */
export const SIGN_IN_WORDS: Record<SignInEventKind, string> = {
  signed_in: 'Signed in with the password',
  signed_in_with_code: 'Signed in with the password and a code from the app',
  signed_in_with_recovery_code: 'Signed in with the password and a recovery code',
  signed_in_with_passkey: 'Signed in with a passkey',
  wrong_password: 'Wrong password',
  wrong_code: 'Right password, wrong code',
  password_changed: 'Password changed',
  password_reset: 'Password set through a reset link from your operator',
  two_step_on: 'Two-step sign-in turned on',
  two_step_off: 'Two-step sign-in turned off',
  two_step_off_by_operator: 'Two-step sign-in turned off by your operator',
  recovery_codes_replaced: 'New recovery codes made',
  others_signed_out: 'Other browsers signed out',
  passkey_added: 'Passkey added',
  passkey_removed: 'Passkey removed',
  api_key_created: 'API key created',
  api_key_revoked: 'API key revoked',
  every_api_key_revoked: 'Every API key revoked',
  agent_connected: 'An agent connected (you allowed it)',
  agent_disconnected: 'An agent disconnected',
  every_agent_disconnected: 'Every agent disconnected',
  agent_powers_changed: 'What an agent may do changed',
};

/** How many events of the history the page lists. */
export const SIGN_IN_HISTORY_SHOWN = 50;

/**
 * Settings → Signed-in browsers (decision 0067): every browser with a live session on the account — what it said it
 * is, when it signed in, when it was last used — and one button that signs out all but this one. Below, the sign-in
 * history of the last 90 days (decision 0091), with a warning when the right password came with a wrong code.
 */
export function registerBrowsersPage(app: Hono<WebEnv>, deps: WebDeps): void {
  app.get('/settings/browsers', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const [browsers, history] = await Promise.all([
      deps.sessions.browsers(account, c.get('sessionToken') ?? ''),
      deps.sessions.history(account, SIGN_IN_HISTORY_SHOWN),
    ]);
    const passwordOut = passwordMayBeKnown(history);
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
          <p><a href="/settings/password">Change your password</a></p>
          <h2 id="history">Sign-in history</h2>
          ${
            passwordOut === undefined
              ? ''
              : html`<div class="notice error" role="alert">
                  On ${when(passwordOut.at)} someone entered your password correctly but not the code from
                  your app. If that was not you, your password is known to someone else:
                  <a href="/settings/password">change it</a>.
                </div>`
          }
          ${
            history.length === 0
              ? html`<p class="muted">Nothing yet in the last 90 days.</p>`
              : html`<table>
                    <thead>
                      <tr>
                        <th scope="col">When</th>
                        <th scope="col">What</th>
                        <th scope="col">From</th>
                      </tr>
                    </thead>
                    <tbody>
                      ${history.map(
                        (e) =>
                          html`<tr data-kind="${e.kind}">
                            <td>${when(e.at)}</td>
                            <td>${SIGN_IN_WORDS[e.kind]}</td>
                            <td>
                              ${
                                e.ip === null
                                  ? 'Your operator'
                                  : html`${e.ip}<br /><span class="muted"
                                        >${e.userAgent ?? 'Unknown browser'}</span
                                      >`
                              }
                            </td>
                          </tr>`,
                      )}
                    </tbody>
                  </table>
                  <p class="muted">
                    The last ${String(SIGN_IN_HISTORY_SHOWN)} events of the last 90 days, newest first.
                  </p>`
          }`,
      }),
    );
  });

  app.post('/settings/browsers/sign-out-others', requireSignIn, async (c) => {
    const n = await deps.sessions.signOutOthers(
      signedInAccount(c),
      c.get('sessionToken') ?? '',
      passwordClient(c, deps),
    );
    return c.redirect(`/settings/browsers?signedOut=${String(n)}`, 303);
  });
}
