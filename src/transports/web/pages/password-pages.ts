import { html } from 'hono/html';
import type { Context, Hono } from 'hono';
import type { Account } from '../../../core/accounts/account.ts';
import { PASSWORD_MIN } from '../../../core/accounts/password-hasher.ts';
import { formFields } from '../form.ts';
import { csrfField, notice, page, type Html } from '../layout.ts';
import { requireSignIn, signedInAccount } from '../session.ts';
import { setSessionCookie } from '../sign-in-cookie.ts';
import { passwordClient } from '../password-client.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';
import { registerErrorText } from './credentials-form.ts';

const newPasswordField = html`<label for="password">New password</label>
  <input
    id="password"
    name="password"
    type="password"
    autocomplete="new-password"
    required
    minlength="${PASSWORD_MIN}"
    aria-describedby="password-hint"
  />
  <p id="password-hint" class="muted">At least ${PASSWORD_MIN} characters. A passphrase is best.</p>`;

/** What a form says while its failures are held (decision 0025's budgets): `what`, and when to try again. */
export function heldWords(what: string, retryAfterSeconds: number): string {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return `${what} Try again in ${String(minutes)} minute${minutes === 1 ? '' : 's'}.`;
}

export const tooManyWrongPasswords = (retryAfterSeconds: number): string =>
  heldWords('Too many wrong passwords.', retryAfterSeconds);

/**
 * The person confirmed again before a change to their way in (0067, 0092): the password against the sign-in budgets,
 * and with `code` given and two-step sign-in on, that code (`null`: the password alone, for forms that check a code
 * themselves). Undefined when confirmed; else the page `pageWith` draws, saying why (400, or 429 while held).
 */
export async function passwordRefused(
  c: Context<WebEnv>,
  deps: WebDeps,
  account: Account,
  password: string,
  code: string | null,
  pageWith: (error: string) => Html | Promise<Html>,
): Promise<Response | undefined> {
  const client = passwordClient(c, deps);
  const confirmed =
    code === null
      ? await deps.sessions.confirmPassword(account, password, client)
      : await deps.sessions.confirmPerson(account, password, code, client);
  if (confirmed.ok) return undefined;
  const e = confirmed.error;
  if (e.code === 'rate_limited' || e.code === 'codes_held') {
    c.header('Retry-After', String(e.retryAfterSeconds));
    const held = e.code === 'rate_limited' ? tooManyWrongPasswords : tooManyCodes;
    return c.html(await pageWith(held(e.retryAfterSeconds)), 429);
  }
  return c.html(await pageWith(confirmWords(e.code)), 400);
}

/** What a form says when the person was not confirmed. */
export const confirmWords = (code: 'wrong_password' | 'wrong_code'): string =>
  code === 'wrong_password' ? 'That is not your password.' : 'That code is not right, or was used already.';

/** The field for a code from the app or a recovery code, on forms that confirm a person with two-step sign-in on. */
export const codeField = (id: string) =>
  html`<label for="${id}">A code from your app, or a recovery code</label>
    <input
      id="${id}"
      name="code"
      autocomplete="one-time-code"
      inputmode="numeric"
      maxlength="40"
      required
    />`;

/** What the two-step forms say while wrong codes are held (decision 0089). */
export const tooManyCodes = (retryAfterSeconds: number): string =>
  heldWords('Too many wrong codes.', retryAfterSeconds);

/**
 * The person's password (decision 0067): changed in Settings with the current one, or set anew with a one-time link
 * the operator issues (`inbox-triage account reset-password`). Either way every session of the account ends and this
 * browser is signed in afresh.
 */
export function registerPasswordPages(app: Hono<WebEnv>, deps: WebDeps): void {
  const changeForm = async (
    c: { get(k: 'csrf'): string },
    account: Account,
    shown?: { error?: string; ok?: string },
  ) =>
    page({
      title: 'Password',
      account,
      csrf: c.get('csrf'),
      body: html`<h1>Change your password</h1>
        ${notice('error', shown?.error)} ${notice('ok', shown?.ok)}
        <p>Every other browser signed in to ${account.email} is signed out when you change it.</p>
        <form method="post" action="/settings/password">
          ${csrfField(c.get('csrf'))}
          <input type="hidden" name="username" autocomplete="username" value="${account.email}" />
          <label for="current">Current password</label>
          <input id="current" name="current" type="password" autocomplete="current-password" required />
          ${(await deps.secondFactor.isOn(account.id)) ? codeField('code') : ''} ${newPasswordField}
          <button type="submit">Change password</button>
        </form>`,
    });

  app.get('/settings/password', requireSignIn, async (c) =>
    c.html(
      await changeForm(c, signedInAccount(c), {
        ...(c.req.query('done') === '1' && {
          ok: 'Your password is changed. Other browsers are signed out.',
        }),
      }),
    ),
  );

  app.post('/settings/password', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const f = await formFields(c, 'current', 'code', 'password');
    const changed = await deps.sessions.changePassword(
      account,
      f.current,
      f.code,
      f.password,
      passwordClient(c, deps),
    );
    if (changed.ok) {
      setSessionCookie(c, deps, changed.value.token);
      return c.redirect('/settings/password?done=1', 303);
    }
    const e = changed.error;
    if (e.code === 'rate_limited' || e.code === 'codes_held') {
      c.header('Retry-After', String(e.retryAfterSeconds));
      const held = e.code === 'rate_limited' ? tooManyWrongPasswords : tooManyCodes;
      return c.html(await changeForm(c, account, { error: held(e.retryAfterSeconds) }), 429);
    }
    return c.html(
      await changeForm(c, account, {
        error:
          e.code === 'weak_password'
            ? e.message
            : e.code === 'wrong_code'
              ? confirmWords(e.code)
              : 'That is not your current password.',
      }),
      400,
    );
  });

  const resetForm = (csrf: string, token: string, account: Account, error?: string): Html =>
    page({
      title: 'Set a new password',
      body: html`<h1>Set a new password</h1>
        ${notice('error', error)}
        <p>For ${account.email}. Every browser signed in to it is signed out, and this one signed in.</p>
        <form method="post" action="/reset">
          ${csrfField(csrf)}
          <input type="hidden" name="token" value="${token}" />
          <input type="hidden" name="username" autocomplete="username" value="${account.email}" />
          ${newPasswordField}
          <button type="submit">Set password</button>
        </form>`,
    });
  const invalid = page({
    title: 'Set a new password',
    body: html`<h1>Set a new password</h1>
      ${notice('error', `${registerErrorText('invalid_link')} Ask the operator of this server for a new one.`)}`,
  });

  app.get('/reset', async (c) => {
    const token = c.req.query('token') ?? '';
    const account = await deps.sessions.passwordResetFor(token);
    if (account === undefined) return c.html(invalid, 410);
    return c.html(resetForm(c.get('csrf'), token, account));
  });

  app.post('/reset', async (c) => {
    const f = await formFields(c, 'token', 'password');
    const done = await deps.sessions.resetPassword(f.token, f.password, passwordClient(c, deps));
    if (done.ok) {
      // With two-step sign-in on, the link set the password only: signing in still asks for a code (decision 0089).
      if (done.value.token === null) return c.redirect('/signin?done=password_reset', 303);
      setSessionCookie(c, deps, done.value.token);
      return c.redirect('/settings/password?done=1', 303);
    }
    if (done.error.code === 'invalid_link') return c.html(invalid, 410);
    const account = await deps.sessions.passwordResetFor(f.token);
    if (account === undefined) return c.html(invalid, 410);
    return c.html(resetForm(c.get('csrf'), f.token, account, done.error.message), 400);
  });
}
