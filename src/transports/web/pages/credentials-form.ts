import { html } from 'hono/html';
import type { Context } from 'hono';
import type { Account } from '../../../core/accounts/account.ts';
import type { RegisterError } from '../../../core/accounts/account-service.ts';
import { PASSWORD_MIN } from '../../../core/accounts/password-hasher.ts';
import { csrfField, type Html } from '../layout.ts';
import { setSessionCookie } from '../sign-in-cookie.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';

/** The email + password form shared by setup, sign-up, invitations and sign-in. */
export function credentialsForm(opts: {
  action: string;
  csrf: string;
  submit: string;
  email?: string;
  emailLocked?: boolean;
  newPassword: boolean;
  hidden?: Record<string, string>;
}): Html {
  const hidden = Object.entries(opts.hidden ?? {}).map(
    ([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`,
  );
  return html`<form method="post" action="${opts.action}">
    ${csrfField(opts.csrf)} ${hidden}
    <label for="email">Email</label>
    <input
      id="email"
      name="email"
      type="email"
      autocomplete="username"
      required
      value="${opts.email ?? ''}"
      ${opts.emailLocked === true ? html`readonly` : ''}
    />
    <label for="password">Password</label>
    <input
      id="password"
      name="password"
      type="password"
      required
      autocomplete="${opts.newPassword ? 'new-password' : 'current-password'}"
      ${opts.newPassword ? html`minlength="${PASSWORD_MIN}" aria-describedby="password-hint"` : ''}
    />
    ${opts.newPassword ? html`<p id="password-hint" class="muted">At least ${PASSWORD_MIN} characters. A passphrase is best.</p>` : ''}
    <button type="submit">${opts.submit}</button>
  </form>`;
}

export function registerErrorText(code: string, message?: string): string {
  switch (code) {
    case 'invalid_email':
      return 'Enter a valid email address (for an invitation, the address it was sent for).';
    case 'weak_password':
      return message ?? 'Choose a longer password.';
    case 'email_taken':
      return 'An account with this email already exists. Sign in instead.';
    case 'signup_closed':
      return 'Sign-up is closed on this server. Ask its operator for an invitation.';
    default:
      return 'This link is invalid, expired or already used.';
  }
}

/** The text for a refused setup, sign-up or invitation. */
export const registerErrorFor = (e: RegisterError): string =>
  registerErrorText(e.code, 'message' in e ? e.message : undefined);

/** A new account is signed in at once and lands on Settings with the welcome note. */
export async function welcomeNewAccount(
  c: Context<WebEnv>,
  deps: WebDeps,
  account: Account,
): Promise<Response> {
  setSessionCookie(c, deps, await deps.sessions.start(account, c.req.header('user-agent') ?? null));
  return c.redirect('/settings?welcome=1', 303);
}
