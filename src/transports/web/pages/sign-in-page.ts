import { html } from 'hono/html';
import type { Context, Hono } from 'hono';
import type { SignedIn } from '../../../core/sessions/session-service.ts';
import { csrfField, notice, page, type Html } from '../layout.ts';
import { formFields, safeNext } from '../form.ts';
import {
  clearCookie,
  deviceCookieName,
  readCookie,
  secondStepCookieName,
  setHttpOnlyCookie,
} from '../cookies.ts';
import { clearSessionCookie, setSessionCookie } from '../sign-in-cookie.ts';
import { passwordClient } from '../password-client.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';
import { credentialsForm } from './credentials-form.ts';
import { passkeyCeremony, postedCredential } from '../passkey-script.ts';
import { heldWords, tooManyCodes } from './password-pages.ts';
import { JUST_SIGNED_IN } from './settings-page.ts';

const DEVICE_COOKIE_SECONDS = 365 * 86_400;
const SECOND_STEP_SECONDS = 5 * 60;
const PASSWORD_SET =
  'Your new password is set and every browser is signed out. Sign in with it and a code from your authenticator app.';

export function registerSignInPage(app: Hono<WebEnv>, deps: WebDeps): void {
  const render = (
    csrf: string,
    next: string,
    error?: string,
    email?: string,
    ok?: string,
    passkey: Html | '' = '',
  ) =>
    page({
      title: 'Sign in',
      body: html`<h1>Sign in</h1>
        ${notice('ok', ok)} ${notice('error', error)}
        ${credentialsForm({ action: '/signin', csrf, submit: 'Sign in', newPassword: false, hidden: { next }, ...(email !== undefined && { email }) })}
        ${passkey}
        <p class="muted">
          Forgot your password? The operator of this server can give you a link to set a new one.
        </p>
        ${deps.openSignup ? html`<p class="muted">No account yet? <a href="/signup">Create one</a>.</p>` : ''}`,
    });

  const renderCode = (csrf: string, next: string, error?: string) =>
    page({
      title: 'Sign in: your code',
      body: html`<h1>Your code</h1>
        ${notice('error', error)}
        <form method="post" action="/signin/code">
          ${csrfField(csrf)}
          <input type="hidden" name="next" value="${next}" />
          <label for="code">The six-digit code from your authenticator app</label>
          <input
            id="code"
            name="code"
            required
            autofocus
            autocomplete="one-time-code"
            inputmode="numeric"
            maxlength="40"
            aria-describedby="code-hint"
          />
          <p id="code-hint" class="muted">
            No phone at hand? Enter one of your recovery codes instead; each works once.
          </p>
          <button type="submit">Sign in</button>
        </form>`,
    });

  /** Signing in with a passkey instead (decision 0092): its options, a button, and the form its answer is posted by. */
  const passkeyWay = async (c: Context<WebEnv>, next: string): Promise<Html | ''> => {
    const options = await deps.passkeys.signInOptions();
    if (options === undefined) return '';
    return html`<h2>Or with a passkey</h2>
      ${passkeyCeremony({
        mode: 'get',
        options,
        action: '/signin/passkey',
        csrf: c.get('csrf'),
        nonce: c.get('nonce'),
        hidden: { next },
        button: 'Sign in with a passkey',
      })}`;
  };

  app.get('/signin', async (c) => {
    const next = safeNext(c.req.query('next'));
    if (c.get('account') !== undefined) return c.redirect(next, 303);
    const reset = c.req.query('done') === 'password_reset';
    return c.html(
      render(
        c.get('csrf'),
        next,
        undefined,
        undefined,
        reset ? PASSWORD_SET : undefined,
        await passkeyWay(c, next),
      ),
    );
  });

  /** A passkey's answer to the sign-in page's challenge: signed in, with neither password nor code. */
  app.post('/signin/passkey', async (c) => {
    const f = await formFields(c, 'credential', 'next');
    const next = safeNext(f.next);
    const result = await deps.sessions.signInWithPasskey(
      postedCredential(f.credential),
      passwordClient(c, deps),
    );
    if (result.ok) return signedIn(c, result.value, next);
    const why = {
      unavailable: 'Passkeys are not available on this server.',
      expired: 'The sign-in page was open too long. Try your passkey again.',
      unknown_passkey:
        'That passkey is not one of an account here (it may have been removed). Sign in with your password.',
      refused: 'That passkey could not be checked. Try again, or sign in with your password.',
    }[result.error.code];
    return c.html(render(c.get('csrf'), next, why, undefined, undefined, await passkeyWay(c, next)), 401);
  });

  app.post('/signin', async (c) => {
    const f = await formFields(c, 'email', 'password', 'next');
    const next = safeNext(f.next);
    const result = await deps.sessions.signIn(f.email, f.password, passwordClient(c, deps));
    if (!result.ok) {
      if (result.error.code === 'rate_limited') {
        c.header('Retry-After', String(result.error.retryAfterSeconds));
        return c.html(
          render(
            c.get('csrf'),
            next,
            heldWords('Too many failed sign-ins.', result.error.retryAfterSeconds),
            f.email,
            undefined,
            await passkeyWay(c, next),
          ),
          429,
        );
      }
      return c.html(
        render(
          c.get('csrf'),
          next,
          'That email and password do not match an account.',
          f.email,
          undefined,
          await passkeyWay(c, next),
        ),
        401,
      );
    }
    if ('secondFactorTicket' in result.value) {
      const ticket = result.value.secondFactorTicket;
      setHttpOnlyCookie(c, deps.cookies, secondStepCookieName(deps.cookies), ticket, SECOND_STEP_SECONDS);
      // Redirected, so that reloading the code page never sends the password again.
      return c.redirect(`/signin/code?${new URLSearchParams({ next }).toString()}`, 303);
    }
    return signedIn(c, result.value, next);
  });

  app.get('/signin/code', (c) => {
    const next = safeNext(c.req.query('next'));
    if (c.get('account') !== undefined) return c.redirect(next, 303);
    if (readCookie(c, secondStepCookieName(deps.cookies)) === undefined)
      return c.redirect(`/signin?${new URLSearchParams({ next }).toString()}`, 303);
    return c.html(renderCode(c.get('csrf'), next));
  });

  /** The second step (decision 0089): a code from the authenticator app, or a recovery code. */
  app.post('/signin/code', async (c) => {
    const f = await formFields(c, 'code', 'next');
    const next = safeNext(f.next);
    const ticket = readCookie(c, secondStepCookieName(deps.cookies)) ?? '';
    const result = await deps.sessions.completeSignIn(ticket, f.code, passwordClient(c, deps));
    if (result.ok) {
      clearCookie(c, deps.cookies, secondStepCookieName(deps.cookies));
      return signedIn(c, result.value, next);
    }
    switch (result.error.code) {
      case 'ticket_expired':
        clearCookie(c, deps.cookies, secondStepCookieName(deps.cookies));
        return c.html(
          render(c.get('csrf'), next, 'The sign-in took too long. Enter your email and password again.'),
          401,
        );
      case 'rate_limited':
        c.header('Retry-After', String(result.error.retryAfterSeconds));
        return c.html(renderCode(c.get('csrf'), next, tooManyCodes(result.error.retryAfterSeconds)), 429);
      case 'wrong_code':
        return c.html(
          renderCode(c.get('csrf'), next, 'That code is not right, or was used already. Try the next one.'),
          401,
        );
    }
  });

  const signedIn = async (c: Context<WebEnv>, s: SignedIn, next: string) => {
    setSessionCookie(c, deps, s.token);
    setHttpOnlyCookie(c, deps.cookies, deviceCookieName(deps.cookies), s.device, DEVICE_COOKIE_SECONDS);
    // Wrong passwords or codes since the previous sign-in are told where the person lands (decision 0091); a sign-in
    // on the way somewhere else (an agent's consent, a send to approve) goes there, and the history keeps them.
    const told =
      next === '/settings' ? await deps.sessions.attemptsBeforeSignIn(s.account, s.token) : undefined;
    return c.redirect(told === undefined ? next : `/settings?${JUST_SIGNED_IN}=1`, 303);
  };

  app.post('/signout', async (c) => {
    const token = c.get('sessionToken');
    if (token !== undefined) await deps.sessions.signOut(token);
    clearSessionCookie(c, deps);
    return c.redirect('/signin', 303);
  });
}
