import { html } from 'hono/html';
import type { Hono } from 'hono';
import { formFields } from '../form.ts';
import { csrfField, notice, page } from '../layout.ts';
import { requireSignIn, signedInAccount } from '../session.ts';
import { clearSessionCookie } from '../sign-in-cookie.ts';
import { codeField, passwordRefused } from './password-pages.ts';
import type { Account } from '../../../core/accounts/account.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';

const CONFIRM_WORD = 'delete';

/** Deleting an account takes the password and a typed confirmation; everything it owns goes with it. */
export function registerDeleteAccountPage(app: Hono<WebEnv>, deps: WebDeps): void {
  const render = async (c: { get(k: 'csrf'): string }, account: Account, error?: string) =>
    page({
      title: 'Delete account',
      csrf: c.get('csrf'),
      body: html`<h1>Delete this account</h1>
        <p>
          This deletes <strong>${account.email}</strong> and everything that belongs to it: connected inboxes
          and their stored credentials, API keys, connected agents and their tokens, and all records kept
          here. Your mailboxes themselves are not touched. This cannot be undone.
        </p>
        ${notice('error', error)}
        <form method="post" action="/settings/delete">
          ${csrfField(c.get('csrf'))}
          <label for="password">Your password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
          ${(await deps.secondFactor.isOn(account.id)) ? codeField('code') : ''}
          <label for="confirm">Type <code>${CONFIRM_WORD}</code> to confirm</label>
          <input id="confirm" name="confirm" type="text" autocomplete="off" required />
          <button class="danger" type="submit">Delete account and all its data</button>
        </form>`,
    });

  app.get('/settings/delete', requireSignIn, async (c) => c.html(await render(c, signedInAccount(c))));

  app.post('/settings/delete', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const f = await formFields(c, 'password', 'code', 'confirm');
    if (f.confirm.trim().toLowerCase() !== CONFIRM_WORD)
      return c.html(await render(c, account, `Type "${CONFIRM_WORD}" to confirm.`), 400);
    // Checked against the sign-in failure budgets first: a session in other hands is no password oracle (0067); with
    // two-step sign-in on, a code too (0092).
    const refused = await passwordRefused(c, deps, account, f.password, f.code, (error) =>
      render(c, account, error),
    );
    if (refused !== undefined) return refused;
    const deleted = await deps.accounts.deleteAccount(account.id, f.password);
    if (!deleted.ok) return c.html(await render(c, account, 'That password is not right.'), 400);
    clearSessionCookie(c, deps);
    return c.html(
      page({
        title: 'Account deleted',
        body: html`<h1>Account deleted</h1>
          <p>Everything is gone. Thank you for trying Inbox Triage.</p>`,
      }),
    );
  });
}
