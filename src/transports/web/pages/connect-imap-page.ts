import { html } from 'hono/html';
import type { Context, Hono } from 'hono';
import { SIGN_IN_NAMES, type InboxService } from '../../../core/inboxes/inbox-service.ts';
import { formFields } from '../form.ts';
import { csrfField, notice, page } from '../layout.ts';
import type { WebEnv } from '../web-env.ts';
import type { LoginFailure } from '../../../core/mail/mail-ports.ts';

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
  target: { readonly email: string; readonly imapHost: string; readonly editable: boolean },
): Promise<string | undefined> {
  const guess = await inboxes.guess(target.email);
  if (guess === undefined || guess.hostedBy === null) return undefined;
  const domain = target.email.slice(target.email.lastIndexOf('@') + 1);
  const again = 'remove this inbox on the Inboxes page and add it again';
  if (guess.provider === 'google' || guess.provider === 'microsoft')
    return `Mail for ${domain} is handled by ${guess.hostedBy}, which connects by signing in with ${SIGN_IN_NAMES[guess.provider].brand}, not with a password: ${again} as ${SIGN_IN_NAMES[guess.provider].mail} (or ask your assistant).`;
  if (guess.imapHost !== null && guess.imapHost !== target.imapHost.toLowerCase())
    return `Mail for ${domain} is handled by ${guess.hostedBy}, whose IMAP server is ${guess.imapHost}: ${
      target.editable ? 'put it below as the incoming server' : `${again} with that server`
    }.`;
  return undefined;
}

/** A port as typed: empty for the default, anything else as a number (a word reads NaN, refused with the rest). */
const portOf = (raw: string): number | undefined => (raw.trim() === '' ? undefined : Number(raw));

/** Why sending with the password just saved would fail, said as the end of "at smtp.example.com:587, …". */
function sendingWords(failure: LoginFailure): string {
  return failure.reason === 'auth_failed'
    ? 'the mail server refused this user name and password (some providers give a separate password for sending)'
    : failure.message;
}

interface Target {
  readonly email: string;
  readonly imapHost: string;
  readonly imapPort: number;
  readonly smtpHost: string | null;
  readonly smtpPort: number | null;
  readonly user: string;
  readonly attemptsLeft: number;
  readonly icloud: boolean;
  /** The account's owner is signed in here, and the inbox is IMAP: its servers can be changed with the password. */
  readonly editable: boolean;
}

/**
 * The single-use page where the person types a mailbox password (contract: no tool ever takes a password). The
 * link itself is the capability: it names one inbox of one account, lives 15 minutes, allows 5 tries, and is
 * consumed when the login works. The password is tested, sealed and never shown again.
 *
 * The page names every server the password goes to: the IMAP server, and the submission server that mail the person
 * approves is sent through (an agent chose both when it added the inbox). The account's owner, signed in, may change
 * them here, tested with the password (decision 0095); a visitor with the link alone may not.
 */
export function registerConnectImapPage(app: Hono<WebEnv>, inboxes: InboxService): void {
  const expired = page({
    title: 'Link expired',
    body: html`<h1>This link has expired or was used</h1>
      ${notice('error', 'Ask your assistant for a new connection link.')}`,
  });

  const serverFields = (t: Target, typed: Readonly<Record<string, string>> | undefined) => {
    const value = (name: string, stored: string | number | null) => typed?.[name] ?? String(stored ?? '');
    return html`<fieldset>
      <legend>Servers</legend>
      <input type="hidden" name="servers" value="shown" />
      <p class="muted" id="servers-hint">
        As your mail provider gives them. Both are tested with your password before anything is saved.
      </p>
      <label for="imapHost">Incoming mail (IMAP) server</label>
      <input
        id="imapHost"
        name="imapHost"
        required
        aria-describedby="servers-hint"
        value="${value('imapHost', t.imapHost)}"
      />
      <label for="imapPort">Its port</label>
      <input id="imapPort" name="imapPort" inputmode="numeric" value="${value('imapPort', t.imapPort)}" />
      <label for="smtpHost">Outgoing mail (SMTP) server</label>
      <input id="smtpHost" name="smtpHost" value="${value('smtpHost', t.smtpHost)}" />
      <label for="smtpPort">Its port (587, or 465)</label>
      <input id="smtpPort" name="smtpPort" inputmode="numeric" value="${value('smtpPort', t.smtpPort)}" />
    </fieldset>`;
  };

  const form = (
    c: { get(k: 'csrf'): string },
    token: string,
    t: Target,
    error?: string,
    typed?: Readonly<Record<string, string>>,
  ) =>
    page({
      title: 'Connect your mailbox',
      body: html`<h1>Connect ${t.email}</h1>
        <p>
          Your password is tested, then stored encrypted. Nobody — and no assistant — will see it. It is used
          with two servers: <strong>${t.imapHost}:${String(t.imapPort)}</strong> to read your
          mail${
            t.smtpHost === null
              ? '.'
              : html`, and <strong>${t.smtpHost}:${String(t.smtpPort ?? 587)}</strong> to send the mail you
                  approve.`
          }
        </p>
        ${t.icloud ? notice('info', 'Use an app-specific password (appleid.apple.com → Sign-In and Security → App-Specific Passwords), not your Apple ID password.') : ''}
        ${notice('error', error)}
        <form method="post" action="/connect/imap">
          ${csrfField(c.get('csrf'))}
          <input type="hidden" name="token" value="${token}" />
          <label for="username">User name</label>
          <input
            id="username"
            name="username"
            type="text"
            autocomplete="username"
            value="${typed?.['username'] ?? t.user}"
          />
          <label for="password">${t.icloud ? 'App-specific password' : 'Password'}</label>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="current-password"
            required
            maxlength="1024"
          />
          ${t.editable ? serverFields(t, typed) : ''}
          <button type="submit">Test and connect</button>
          <p class="muted">
            ${String(t.attemptsLeft)} attempt${t.attemptsLeft === 1 ? '' : 's'} left with this link.
            ${t.editable || t.icloud ? '' : 'Other servers? Signed in as the owner of this account, this page lets you change them.'}
          </p>
        </form>`,
    });

  const describe = async (c: Context<WebEnv>, token: string): Promise<Target | undefined> => {
    const t = await inboxes.captureTarget(token);
    if (t === undefined) return undefined;
    const { inbox } = t;
    return {
      email: inbox.email,
      imapHost: inbox.imapHost ?? '',
      imapPort: inbox.imapPort ?? 993,
      smtpHost: inbox.smtpHost,
      smtpPort: inbox.smtpPort,
      user: inbox.imapUser ?? inbox.email,
      attemptsLeft: t.attemptsLeft,
      icloud: inbox.provider === 'icloud',
      editable: inbox.provider === 'imap' && c.get('account')?.id === inbox.accountId,
    };
  };

  app.get('/connect/imap', async (c) => {
    const token = c.req.query('token') ?? '';
    const target = await describe(c, token);
    return target === undefined ? c.html(expired, 410) : c.html(form(c, token, target));
  });

  app.post('/connect/imap', async (c) => {
    const f = await formFields(
      c,
      'token',
      'username',
      'password',
      'imapHost',
      'imapPort',
      'smtpHost',
      'smtpPort',
      'servers',
    );
    const before = await describe(c, f.token);
    if (before === undefined) return c.html(expired, 410);
    const account = c.get('account');
    // Servers are read only from the owner's own form, and only when it showed them (a page opened before signing in
    // has none: its password is taken for the servers in place); from anyone else they are not even looked at.
    const change =
      before.editable && account !== undefined && f.servers === 'shown'
        ? {
            by: account.id,
            servers: {
              imapHost: f.imapHost,
              imapPort: portOf(f.imapPort),
              smtpHost: f.smtpHost,
              smtpPort: portOf(f.smtpPort),
            },
          }
        : undefined;
    const result = await inboxes.completeSecretCapture(f.token, f.username, f.password, change);
    if (result.ok) {
      const { inbox, sending } = result.value;
      const at = `${inbox.smtpHost ?? ''}:${String(inbox.smtpPort ?? 587)}`;
      return c.html(
        page({
          title: 'Connected',
          body: html`<h1>${inbox.email} is connected</h1>
            ${
              sending === undefined
                ? notice('ok', 'You can close this page and go back to your assistant.')
                : html`${notice('ok', 'Your mail can be read: you can go back to your assistant.')}
                  ${notice(
                    'error',
                    `Sending will not work yet: at ${at}, ${sendingWords(sending)}. Check the outgoing server with your provider; ${
                      before.editable
                        ? 'change it under Change password or servers on the Inboxes page.'
                        : 'whoever owns this account changes it on the Inboxes page.'
                    }`,
                  )}`
            }`,
        }),
      );
    }
    if (result.error.reason === 'link_invalid') return c.html(expired, 410);
    const target = await describe(c, f.token);
    if (target === undefined) return c.html(expired, 410);
    const typed = change === undefined ? { username: f.username } : { ...f, password: '' };
    if (result.error.reason === 'invalid_servers')
      return c.html(form(c, f.token, target, result.error.message, typed), 400);
    // A certificate's failure is said as the adapter words it: which failure, and what the operator can do.
    const words =
      result.error.reason === 'certificate'
        ? result.error.message
        : (REASONS[result.error.reason] ?? 'The connection failed.');
    const elsewhere =
      result.error.reason === 'unreachable'
        ? ((await handledElsewhere(inboxes, target)) ??
          (target.editable ? 'If your provider gives another server, correct it below.' : undefined))
        : undefined;
    return c.html(
      form(c, f.token, target, elsewhere === undefined ? words : `${words} ${elsewhere}`, typed),
      400,
    );
  });
}
