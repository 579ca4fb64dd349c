import { html } from 'hono/html';
import type { Context, Hono } from 'hono';
import type { Account } from '../../../core/accounts/account.ts';
import type { RegisterError } from '../../../core/accounts/account-service.ts';
import type { Result } from '../../../lib/result.ts';
import { notice, page } from '../layout.ts';
import { formFields } from '../form.ts';
import { setSessionCookie } from '../sign-in-cookie.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';
import { credentialsForm, registerErrorText } from './credentials-form.ts';

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
  const errorText = (e: RegisterError) => registerErrorText(e.code, 'message' in e ? e.message : undefined);

  const finish = async (
    c: Context<WebEnv>,
    created: Result<Account, RegisterError>,
  ): Promise<Response | undefined> => {
    if (!created.ok) return undefined;
    setSessionCookie(c, deps, await deps.sessions.start(created.value, c.req.header('user-agent') ?? null));
    return c.redirect('/settings?welcome=1', 303);
  };

  app.get('/signup', (c) =>
    deps.openSignup
      ? c.html(form({ title: 'Create an account', action: '/signup', csrf: c.get('csrf') }))
      : c.html(closed, 404),
  );
  app.post('/signup', async (c) => {
    if (!deps.openSignup) return c.html(closed, 404);
    const f = await formFields(c, 'email', 'password');
    const created = await deps.accounts.signUp(f.email, f.password);
    return (
      (await finish(c, created)) ??
      c.html(
        form({
          title: 'Create an account',
          action: '/signup',
          csrf: c.get('csrf'),
          error: created.ok ? undefined : errorText(created.error),
          email: f.email,
        }),
        400,
      )
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
    if (!created.ok && created.error.code === 'invalid_link') return c.html(invalid, 410);
    return (
      (await finish(c, created)) ??
      c.html(
        form({
          title: 'Accept your invitation',
          action: '/invite',
          csrf: c.get('csrf'),
          token: f.token,
          error: created.ok ? undefined : errorText(created.error),
          email: f.email,
        }),
        400,
      )
    );
  });
}
