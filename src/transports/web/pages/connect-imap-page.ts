import { html } from 'hono/html';
import type { Hono } from 'hono';
import { SIGN_IN_NAMES, type InboxService } from '../../../core/inboxes/inbox-service.ts';
import { formFields } from '../form.ts';
import { csrfField, notice, page } from '../layout.ts';
import type { WebEnv } from '../web-env.ts';

const REASONS: Record<string, string> = {
  auth_failed:
    'The mail server refused this user name and password. Check them and try again (iCloud needs an app-specific password).',
  unreachable: 'The mail server could not be reached. Check the server name and port with your provider.',
  unavailable:
    'The mail server could not check the login just now, a failure on its side; this says nothing about the password. Try again in a few minutes.',
  tls_required: 'The mail server does not offer an encrypted connection, so the password was not sent.',
  refused_host: 'This server address points to a private network, which this service does not connect to.',
};

/**
 * For a server that could not be reached: where the address's mail really goes, when its MX records say (decision
 * 0093) — a Google Workspace or Microsoft 365 domain connects by their sign-in, another service at its own host.
 */
async function handledElsewhere(
  inboxes: InboxService,
  target: { readonly email: string; readonly imapHost: string },
): Promise<string | undefined> {
  const guess = await inboxes.guess(target.email);
  if (guess === undefined || guess.hostedBy === null) return undefined;
  const domain = target.email.slice(target.email.lastIndexOf('@') + 1);
  const again = 'remove this inbox on the Inboxes page and add it again';
  if (guess.provider === 'google' || guess.provider === 'microsoft')
    return `Mail for ${domain} is handled by ${guess.hostedBy}, which connects by signing in with ${SIGN_IN_NAMES[guess.provider].brand}, not with a password: ${again} as ${SIGN_IN_NAMES[guess.provider].mail} (or ask your assistant).`;
  if (guess.imapHost !== null && guess.imapHost !== target.imapHost.toLowerCase())
    return `Mail for ${domain} is handled by ${guess.hostedBy}, whose IMAP server is ${guess.imapHost}: ${again} with that server.`;
  return undefined;
}

/**
 * The single-use page where the person types a mailbox password (contract: no tool ever takes a password). The
 * link itself is the capability: it names one inbox of one account, lives 15 minutes, allows 5 tries, and is
 * consumed when the login works. The password is tested, sealed and never shown again.
 */
export function registerConnectImapPage(app: Hono<WebEnv>, inboxes: InboxService): void {
  const expired = page({
    title: 'Link expired',
    body: html`<h1>This link has expired or was used</h1>
      ${notice('error', 'Ask your assistant for a new connection link.')}`,
  });

  const form = (
    c: { get(k: 'csrf'): string },
    token: string,
    target: { email: string; host: string; user: string; attemptsLeft: number; icloud: boolean },
    error?: string,
  ) =>
    page({
      title: 'Connect your mailbox',
      body: html`<h1>Connect ${target.email}</h1>
        <p>
          Server <strong>${target.host}</strong>. Your password is tested with the server, then stored
          encrypted. Nobody — and no assistant — will see it.
        </p>
        ${target.icloud ? notice('info', 'Use an app-specific password (appleid.apple.com → Sign-In and Security → App-Specific Passwords), not your Apple ID password.') : ''}
        ${notice('error', error)}
        <form method="post" action="/connect/imap">
          ${csrfField(c.get('csrf'))}
          <input type="hidden" name="token" value="${token}" />
          <label for="username">User name</label>
          <input id="username" name="username" type="text" autocomplete="username" value="${target.user}" />
          <label for="password">${target.icloud ? 'App-specific password' : 'Password'}</label>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="current-password"
            required
            maxlength="1024"
          />
          <button type="submit">Test and connect</button>
          <p class="muted">
            ${String(target.attemptsLeft)} attempt${target.attemptsLeft === 1 ? '' : 's'} left with this link.
          </p>
        </form>`,
    });

  const describe = async (token: string) => {
    const t = await inboxes.captureTarget(token);
    return (
      t && {
        email: t.inbox.email,
        host: `${t.inbox.imapHost ?? ''}:${String(t.inbox.imapPort ?? 993)}`,
        imapHost: t.inbox.imapHost ?? '',
        user: t.inbox.imapUser ?? t.inbox.email,
        attemptsLeft: t.attemptsLeft,
        icloud: t.inbox.provider === 'icloud',
      }
    );
  };

  app.get('/connect/imap', async (c) => {
    const token = c.req.query('token') ?? '';
    const target = await describe(token);
    return target === undefined ? c.html(expired, 410) : c.html(form(c, token, target));
  });

  app.post('/connect/imap', async (c) => {
    const f = await formFields(c, 'token', 'username', 'password');
    const result = await inboxes.completeSecretCapture(f.token, f.username, f.password);
    if (result.ok) {
      return c.html(
        page({
          title: 'Connected',
          body: html`<h1>${result.value.email} is connected</h1>
            ${notice('ok', 'You can close this page and go back to your assistant.')}`,
        }),
      );
    }
    if (result.error.reason === 'link_invalid') return c.html(expired, 410);
    const target = await describe(f.token);
    if (target === undefined) return c.html(expired, 410);
    // A certificate's failure is said as the adapter words it: which failure, and what the operator can do.
    const words =
      result.error.reason === 'certificate'
        ? result.error.message
        : (REASONS[result.error.reason] ?? 'The connection failed.');
    const elsewhere =
      result.error.reason === 'unreachable' ? await handledElsewhere(inboxes, target) : undefined;
    return c.html(form(c, f.token, target, elsewhere === undefined ? words : `${words} ${elsewhere}`), 400);
  });
}
