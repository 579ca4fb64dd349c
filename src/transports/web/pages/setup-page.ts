import { html } from 'hono/html';
import type { Hono } from 'hono';
import { notice, page } from '../layout.ts';
import { formFields } from '../form.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';
import { credentialsForm, registerErrorFor, welcomeNewAccount } from './credentials-form.ts';

/** First run: the one-time link printed on the console creates the owner account. */
export function registerSetupPage(app: Hono<WebEnv>, deps: WebDeps): void {
  const render = (csrf: string, token: string, error?: string, email?: string) =>
    page({
      title: 'Set up Inbox Triage',
      body: html`<h1>Set up Inbox Triage</h1>
        <p>Create the owner account. You will connect inboxes and create keys for your agents next.</p>
        ${notice('error', error)}
        ${credentialsForm({ action: '/setup', csrf, submit: 'Create account', newPassword: true, hidden: { token }, ...(email !== undefined && { email }) })}`,
    });

  const unavailable = async (token: string): Promise<string | undefined> => {
    if (!(await deps.accounts.needsSetup())) return 'This server is already set up.';
    if (!(await deps.accounts.isSetupLinkValid(token))) {
      return 'This setup link is invalid or has expired. Restart the service to print a new one.';
    }
    return undefined;
  };
  const gone = (message: string) =>
    page({
      title: 'Setup',
      body: html`<h1>Setup</h1>
        ${notice('error', message)}
        <p><a href="/signin">Sign in</a></p>`,
    });

  app.get('/setup', async (c) => {
    const token = c.req.query('token') ?? '';
    const problem = await unavailable(token);
    return c.html(
      problem === undefined ? render(c.get('csrf'), token) : gone(problem),
      problem === undefined ? 200 : 410,
    );
  });

  app.post('/setup', async (c) => {
    const f = await formFields(c, 'token', 'email', 'password');
    const problem = await unavailable(f.token);
    if (problem !== undefined) return c.html(gone(problem), 410);
    const created = await deps.accounts.completeSetup(f.token, f.email, f.password);
    // Another setup with this link (another tab, another node) took it meanwhile.
    if (!created.ok && created.error.code === 'invalid_link')
      return c.html(gone((await unavailable(f.token)) ?? 'This setup link was used already.'), 410);
    if (!created.ok)
      return c.html(render(c.get('csrf'), f.token, registerErrorFor(created.error), f.email), 400);
    return welcomeNewAccount(c, deps, created.value);
  });
}
