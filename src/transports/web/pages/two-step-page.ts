import { html, raw } from 'hono/html';
import type { Context, Hono } from 'hono';
import type { Account } from '../../../core/accounts/account.ts';
import { otpauthUri } from '../../../lib/totp.ts';
import { dropFlash, keepFlash, peekFlash, type FlashPlace } from '../flash.ts';
import { formFields } from '../form.ts';
import { csrfField, notice, page, when, type Html } from '../layout.ts';
import { passwordClient } from '../password-client.ts';
import { requireSignIn, signedInAccount } from '../session.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';
import { codeField, confirmWords, passwordRefused, tooManyCodes } from './password-pages.ts';

const PATH = '/settings/two-step';
/** The secret being set up, sealed to the account, for as long as setting up an app may take. */
const setupAt = (deps: WebDeps): FlashPlace => ({
  name: 'it_two_step',
  path: PATH,
  flash: deps.flash,
  cookies: deps.cookies,
  seconds: 15 * 60,
});
const ISSUER = 'Inbox Triage';

const DONE: Readonly<Record<string, string>> = {
  off: 'Two-step sign-in is off. Signing in takes your password alone.',
  expired: 'Setting up took too long. Start again.',
};

/** A form that asks for the person's password, then `rest` (its other fields and its button). */
export const withPassword = (
  c: Context<WebEnv>,
  account: Account,
  action: string,
  rest: Html,
  idPrefix = '',
) =>
  html`<form method="post" action="${action}">
    ${csrfField(c.get('csrf'))}
    <input type="hidden" name="username" autocomplete="username" value="${account.email}" />
    <label for="${idPrefix}password">Your password</label>
    <input
      id="${idPrefix}password"
      name="password"
      type="password"
      autocomplete="current-password"
      required
    />
    ${rest}
  </form>`;

/** At or below this many recovery codes left, the page suggests new ones. */
const FEW_CODES_LEFT = 3;

/**
 * Settings → Two-step sign-in (decision 0089): a code from an authenticator app after the password. Turned on with the
 * password, then a code from the app (so a mistyped secret never locks anyone out); turned off with the password and a
 * code. The recovery codes are shown once, when it is turned on.
 */
export function registerTwoStepPage(app: Hono<WebEnv>, deps: WebDeps): void {
  const statusPage = async (c: Context<WebEnv>, account: Account, error?: string): Promise<Html> => {
    const status = await deps.secondFactor.status(account.id);
    const done = c.req.query('done');
    return page({
      nonce: c.get('nonce'),
      title: 'Two-step sign-in',
      account,
      csrf: c.get('csrf'),
      body: html`<h1>Two-step sign-in</h1>
        ${notice('ok', done === undefined ? undefined : DONE[done])} ${notice('error', error)}
        ${
          status.on
            ? html`<p>
                  <strong>On</strong> since ${when(status.since ?? new Date(0))}: signing in asks for a code
                  from your authenticator app after your password. Recovery codes left:
                  ${String(status.recoveryCodesLeft ?? 0)}.
                </p>
                ${(status.recoveryCodesLeft ?? 0) <= FEW_CODES_LEFT ? notice('info', `Only ${String(status.recoveryCodesLeft ?? 0)} recovery code${status.recoveryCodesLeft === 1 ? '' : 's'} left: make new ones below.`) : ''}
                <h2>New recovery codes</h2>
                ${withPassword(
                  c,
                  account,
                  `${PATH}/recovery-codes`,
                  html`${codeField('new-codes-code')}
                    <button class="secondary" type="submit">Make ten new recovery codes</button>`,
                  'new-codes-',
                )}
                <h2>Turn it off</h2>
                ${withPassword(
                  c,
                  account,
                  `${PATH}/off`,
                  html`${codeField('code')}
                    <button class="danger" type="submit">Turn off two-step sign-in</button>`,
                )}`
            : html`<p>
                  <strong>Off.</strong> Your console approves what agents send; with two-step sign-in, a
                  stolen password is not enough to sign in to it. You need an authenticator app (Google
                  Authenticator, Microsoft Authenticator, 1Password, Aegis, Bitwarden …).
                </p>
                ${withPassword(
                  c,
                  account,
                  `${PATH}/begin`,
                  html`<button type="submit">Set up two-step sign-in</button>`,
                )}`
        }`,
    });
  };

  /** The password checked again (0067); this page, saying why, when it is refused. */
  const passwordRefusal = (c: Context<WebEnv>, account: Account, password: string) =>
    passwordRefused(c, deps, account, password, null, (error: string) => statusPage(c, account, error));

  /** A code from the app or a recovery code, checked and spent; the page that says why, when it is refused. */
  const codeRefused = async (c: Context<WebEnv>, account: Account, code: string) => {
    const checked = await deps.secondFactor.check(account.id, code, passwordClient(c, deps));
    if (checked.ok) return undefined;
    if (checked.error.code === 'rate_limited') {
      c.header('Retry-After', String(checked.error.retryAfterSeconds));
      return c.html(await statusPage(c, account, tooManyCodes(checked.error.retryAfterSeconds)), 429);
    }
    return c.html(await statusPage(c, account, confirmWords('wrong_code')), 400);
  };

  /** Recovery codes, shown this once. */
  const codesPage = (
    c: Context<WebEnv>,
    account: Account,
    title: string,
    done: string,
    codes: readonly string[],
  ): Html =>
    page({
      title,
      account,
      csrf: c.get('csrf'),
      body: html`<h1>${title}</h1>
        ${notice('ok', done)}
        <h2>Your recovery codes</h2>
        <p>
          If you lose your phone, each of these signs you in once instead of a code. Keep them somewhere safe,
          apart from your phone: <strong>this is the only time they are shown.</strong>
        </p>
        <ul class="recovery-codes">
          ${codes.map((code) => html`<li><code>${code}</code></li>`)}
        </ul>
        <p><a href="/settings/two-step">Back to two-step sign-in</a></p>`,
    });

  const setupPage = (c: Context<WebEnv>, account: Account, secret: string, error?: string): Html => {
    const uri = otpauthUri(secret, ISSUER, account.email);
    // The SVG is made of the code's modules alone: nothing in it is text a person or a sender wrote.
    const qr = deps.qrSvg(uri);
    return page({
      title: 'Set up two-step sign-in',
      account,
      csrf: c.get('csrf'),
      body: html`<h1>Set up two-step sign-in</h1>
        ${notice('error', error)}
        <ol>
          <li>
            In your authenticator app, add an account and scan this code.
            <div class="qr" role="img" aria-label="QR code of the setup key" style="max-width:16rem">
              ${raw(qr)}
            </div>
          </li>
          <li>
            Or type this setup key: <code class="setup-key">${secret.replace(/(.{4})(?=.)/g, '$1 ')}</code>
            (time-based, six digits, every 30 seconds).
          </li>
          <li>Enter the code the app shows now.</li>
        </ol>
        <form method="post" action="${PATH}/confirm">
          ${csrfField(c.get('csrf'))}
          <label for="code">Code from the app</label>
          <input
            id="code"
            name="code"
            autocomplete="one-time-code"
            inputmode="numeric"
            maxlength="10"
            required
          />
          <button type="submit">Turn on</button>
        </form>
        <p class="muted">
          Until you enter a code, nothing changes: signing in still takes your password alone.
        </p>`,
    });
  };

  app.get(PATH, requireSignIn, async (c) => c.html(await statusPage(c, signedInAccount(c))));

  app.post(`${PATH}/begin`, requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const f = await formFields(c, 'password');
    const refused = await passwordRefusal(c, account, f.password);
    if (refused !== undefined) return refused;
    if ((await deps.secondFactor.status(account.id)).on) return c.redirect(PATH, 303);
    const secret = deps.secondFactor.newSecret();
    keepFlash(c, setupAt(deps), account.id, secret);
    return c.html(setupPage(c, account, secret));
  });

  app.post(`${PATH}/confirm`, requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const f = await formFields(c, 'code');
    const secret = peekFlash(c, setupAt(deps), account.id);
    if (secret === undefined) return c.redirect(`${PATH}?done=expired`, 303);
    const on = await deps.secondFactor.enable(account.id, secret, f.code, passwordClient(c, deps));
    if (!on.ok) {
      switch (on.error.code) {
        case 'already_on':
          dropFlash(c, setupAt(deps));
          return c.redirect(PATH, 303);
        case 'rate_limited':
          c.header('Retry-After', String(on.error.retryAfterSeconds));
          return c.html(setupPage(c, account, secret, tooManyCodes(on.error.retryAfterSeconds)), 429);
        case 'wrong_code':
          return c.html(
            setupPage(
              c,
              account,
              secret,
              'That code is not right. Check the app’s clock and enter the current one.',
            ),
            400,
          );
      }
    }
    dropFlash(c, setupAt(deps));
    // A browser signed in before with the password alone stays no longer than the change.
    const token = c.get('sessionToken');
    const others =
      token === undefined ? 0 : await deps.sessions.signOutOthers(account, token, passwordClient(c, deps));
    return c.html(
      codesPage(
        c,
        account,
        'Two-step sign-in is on',
        `From now on, signing in asks for a code from your app.${
          others > 0 ? ` ${String(others)} other browser${others === 1 ? ' was' : 's were'} signed out.` : ''
        }`,
        on.value,
      ),
    );
  });

  /** Ten new recovery codes in place of those left, with the password and a code (one of the old ones will do). */
  app.post(`${PATH}/recovery-codes`, requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const f = await formFields(c, 'password', 'code');
    const refused =
      (await passwordRefusal(c, account, f.password)) ?? (await codeRefused(c, account, f.code));
    if (refused !== undefined) return refused;
    const codes = await deps.secondFactor.replaceRecoveryCodes(account.id, passwordClient(c, deps));
    if (codes === undefined) return c.redirect(PATH, 303);
    return c.html(
      codesPage(c, account, 'New recovery codes', 'Your earlier recovery codes no longer work.', codes),
    );
  });

  app.post(`${PATH}/off`, requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const f = await formFields(c, 'password', 'code');
    const refused =
      (await passwordRefusal(c, account, f.password)) ?? (await codeRefused(c, account, f.code));
    if (refused !== undefined) return refused;
    await deps.secondFactor.disable(account.id, passwordClient(c, deps));
    return c.redirect(`${PATH}?done=off`, 303);
  });
}
