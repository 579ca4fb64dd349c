import { html } from 'hono/html';
import type { Hono } from 'hono';
import { notice, page } from '../layout.ts';
import { formFields, safeNext } from '../form.ts';
import { deviceCookieName, setHttpOnlyCookie } from '../cookies.ts';
import { clearSessionCookie, setSessionCookie } from '../sign-in-cookie.ts';
import { passwordClient } from '../password-client.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';
import { credentialsForm } from './credentials-form.ts';

const DEVICE_COOKIE_SECONDS = 365 * 86_400;

export function registerSignInPage(app: Hono<WebEnv>, deps: WebDeps): void {
  const render = (csrf: string, next: string, error?: string, email?: string) =>
    page({
      title: 'Sign in',
      body: html`<h1>Sign in</h1>
        ${notice('error', error)}
        ${credentialsForm({ action: '/signin', csrf, submit: 'Sign in', newPassword: false, hidden: { next }, ...(email !== undefined && { email }) })}
        <p class="muted">
          Forgot your password? The operator of this server can give you a link to set a new one.
        </p>
        ${deps.openSignup ? html`<p class="muted">No account yet? <a href="/signup">Create one</a>.</p>` : ''}`,
    });

  app.get('/signin', (c) => {
    const next = safeNext(c.req.query('next'));
    if (c.get('account') !== undefined) return c.redirect(next, 303);
    return c.html(render(c.get('csrf'), next));
  });

  app.post('/signin', async (c) => {
    const f = await formFields(c, 'email', 'password', 'next');
    const next = safeNext(f.next);
    const result = await deps.sessions.signIn(f.email, f.password, passwordClient(c, deps));
    if (!result.ok) {
      if (result.error.code === 'rate_limited') {
        const minutes = Math.ceil(result.error.retryAfterSeconds / 60);
        c.header('Retry-After', String(result.error.retryAfterSeconds));
        return c.html(
          render(
            c.get('csrf'),
            next,
            `Too many failed sign-ins. Try again in ${String(minutes)} minute${minutes === 1 ? '' : 's'}.`,
            f.email,
          ),
          429,
        );
      }
      return c.html(
        render(c.get('csrf'), next, 'That email and password do not match an account.', f.email),
        401,
      );
    }
    setSessionCookie(c, deps, result.value.token);
    setHttpOnlyCookie(
      c,
      deps.cookies,
      deviceCookieName(deps.cookies),
      result.value.device,
      DEVICE_COOKIE_SECONDS,
    );
    return c.redirect(next, 303);
  });

  app.post('/signout', async (c) => {
    const token = c.get('sessionToken');
    if (token !== undefined) await deps.sessions.signOut(token);
    clearSessionCookie(c, deps);
    return c.redirect('/signin', 303);
  });
}
