import { html } from 'hono/html';
import type { Hono } from 'hono';
import { notice, page } from '../layout.ts';
import { formFields } from '../form.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';
import {
  credentialsForm,
  registerErrorFor,
  registerErrorText,
  welcomeNewAccount,
} from './credentials-form.ts';

/** More accounts: open sign-up (when the operator enables it) and one-time invitation links from the CLI. */
export function registerSignUpPages(app: Hono<WebEnv>, deps: WebDeps): void {
  const form = (opts: {
    title: string;
    action: string;
    csrf: string;
    error?: string | undefined;
    email?: string;
    locked?: boolean;
    token?: string;
  }) =>
    page({
      title: opts.title,
      body: html`<h1>${opts.title}</h1>
        ${notice('error', opts.error)}
        ${credentialsForm({
          action: opts.action,
          csrf: opts.csrf,
          submit: 'Create account',
          newPassword: true,
          ...(opts.email !== undefined && { email: opts.email }),
          ...(opts.locked !== undefined && { emailLocked: opts.locked }),
          ...(opts.token !== undefined && { hidden: { token: opts.token } }),
        })}`,
    });
  const closed = page({
    title: 'Sign-up closed',
    body: html`<h1>Sign-up is closed</h1>
      ${notice('info', registerErrorText('signup_closed'))}`,
  });
  const invalid = page({
    title: 'Invitation',
    body: html`<h1>Invitation</h1>
      ${notice('error', registerErrorText('invalid_link'))}`,
  });
  app.get('/signup', (c) =>
    deps.openSignup
      ? c.html(form({ title: 'Create an account', action: '/signup', csrf: c.get('csrf') }))
      : c.html(closed, 404),
  );
  app.post('/signup', async (c) => {
    if (!deps.openSignup) return c.html(closed, 404);
    const f = await formFields(c, 'email', 'password');
    const created = await deps.accounts.signUp(f.email, f.password);
    if (created.ok) return welcomeNewAccount(c, deps, created.value);
    return c.html(
      form({
        title: 'Create an account',
        action: '/signup',
        csrf: c.get('csrf'),
        error: registerErrorFor(created.error),
        email: f.email,
      }),
      400,
    );
  });

  app.get('/invite', async (c) => {
    const token = c.req.query('token') ?? '';
    const inv = await deps.accounts.invitationFor(token);
    if (inv === undefined) return c.html(invalid, 410);
    return c.html(
      form({
        title: 'Accept your invitation',
        action: '/invite',
        csrf: c.get('csrf'),
        token,
        locked: inv.email !== null,
        ...(inv.email !== null && { email: inv.email }),
      }),
    );
  });
  app.post('/invite', async (c) => {
    const f = await formFields(c, 'token', 'email', 'password');
    const created = await deps.accounts.acceptInvitation(f.token, f.email, f.password);
    if (created.ok) return welcomeNewAccount(c, deps, created.value);
    if (created.error.code === 'invalid_link') return c.html(invalid, 410);
    return c.html(
      form({
        title: 'Accept your invitation',
        action: '/invite',
        csrf: c.get('csrf'),
        token: f.token,
        error: registerErrorFor(created.error),
        email: f.email,
      }),
      400,
    );
  });
}
