import { html } from 'hono/html';
import type { Context, Hono } from 'hono';
import type { Account } from '../../../core/accounts/account.ts';
import { fromLine, PROVIDERS, type Inbox } from '../../../core/inboxes/inbox.ts';
import {
  SIGN_IN_NAMES,
  SIGN_IN_NOT_CONFIGURED,
  type SignInProvider,
} from '../../../core/inboxes/inbox-service.ts';
import { inboxView, type InboxView } from '../../../core/inboxes/inbox-view.ts';
import type { FolderStatus } from '../../../core/sync/inbox-status.ts';
import { formBody, formFields } from '../form.ts';
import { csrfField, notice, page, when } from '../layout.ts';
import { requireSignIn, signedInAccount } from '../session.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';
import { wholeAccount } from '../../../core/auth/inbox-reach.ts';

const STATUS: Record<string, string> = {
  connected: 'Connected',
  not_connected: 'Not connected',
  needs_reconnect: 'Needs reconnecting',
  paused: 'Paused',
};

/** The provider an inbox connects to by signing in there, if any. */
const signInOf = (i: Pick<Inbox, 'provider'>): SignInProvider | undefined =>
  i.provider === 'google' || i.provider === 'microsoft' ? i.provider : undefined;

/** What is wrong with an inbox, in words, with what to do about it; undefined when nothing is. */
function problem(i: Inbox): string | undefined {
  if (i.paused) return 'Paused: agents cannot use it and it is not synced. Resume it to go on.';
  const signIn = signInOf(i);
  if (signIn !== undefined && i.connectionStatus === 'needs_reconnect')
    return `${SIGN_IN_NAMES[signIn].brand} no longer accepts this inbox's sign-in (it was revoked there, or it expired). Sign in with ${SIGN_IN_NAMES[signIn].brand} again.`;
  if (signIn !== undefined && i.connectionStatus === 'not_connected')
    return `Not connected yet: sign in with ${SIGN_IN_NAMES[signIn].brand} to start syncing.`;
  if (i.connectionStatus === 'needs_reconnect')
    return 'The mail server refused the stored password. Enter the password again (for iCloud: a new app-specific password).';
  if (i.connectionStatus === 'not_connected' && !i.isDemo)
    return 'Not connected yet: enter the password (for iCloud: an app-specific password) to start syncing.';
  if (i.lastError !== null)
    return `The last sync failed (${i.lastError}). It retries on its own; if it keeps failing, check the server name and port.`;
  return undefined;
}

const DONE: Readonly<Record<string, string>> = {
  removed: 'The inbox was removed from Inbox Triage. Your mailbox itself is untouched.',
  folders: 'Saved: the folders to sync. The next sync uses them.',
  sender_name: 'Saved: the name on the mail you send. The next draft has it.',
};

/**
 * The person's name on the mail they send from an inbox (decision 0088): what recipients see, and how it came to be.
 * Only the person sets it here; no agent can.
 */
function senderNameForm(
  inbox: Inbox,
  csrf: string,
  refused: { readonly value: string; readonly error: string } | undefined,
) {
  const id = `sender-${inbox.id}`;
  const name = inbox.senderName;
  const hint =
    name === null
      ? 'Not known yet: it is taken from your Sent mail when the first draft is written.'
      : name === ''
        ? `None: recipients see ${inbox.email} alone.`
        : `Recipients see “${fromLine(inbox)}”. Empty it to send with the address alone.`;
  return html`<form method="post" action="/inboxes/${inbox.id}/sender-name">
    ${csrfField(csrf)}
    <label for="${id}">Your name on the mail you send</label>
    <input
      id="${id}"
      name="senderName"
      maxlength="100"
      autocomplete="name"
      value="${refused?.value ?? name ?? ''}"
      aria-describedby="${id}-hint${refused === undefined ? '' : ` ${id}-error`}"
      ${refused === undefined ? '' : html`aria-invalid="true"`}
    />
    ${refused === undefined ? '' : html`<span class="field-error" id="${id}-error" role="alert">${refused.error}</span>`}
    <span class="muted" id="${id}-hint">${hint}</span>
    <button class="secondary" type="submit">Save the name</button>
  </form>`;
}

const SIGN_INS: readonly SignInProvider[] = ['google', 'microsoft'];
/** How Add an inbox names each sign-in provider. */
const SIGN_IN_WHAT: Readonly<Record<SignInProvider, string>> = {
  google: `${SIGN_IN_NAMES.google.mail} (${SIGN_IN_NAMES.google.brand})`,
  microsoft: SIGN_IN_NAMES.microsoft.mail,
};

/**
 * How an inbox that cannot sync gets connected: the password page for IMAP and iCloud, the provider's sign-in for
 * Gmail and Microsoft (or, where the operator has not set that up, what they must do). A connected IMAP or iCloud
 * inbox goes to the same page for a new password (and, on IMAP, other servers).
 */
function connectButton(inbox: InboxView, csrf: string, canSignIn: (p: SignInProvider) => boolean) {
  if (inbox.isDemo) return '';
  const signIn = signInOf(inbox);
  const broken = inbox.connectionStatus === 'not_connected' || inbox.needsReconnect;
  // Connected: a password that changed, or servers that did (IMAP), go in on the same page (decision 0095).
  if (!broken && signIn !== undefined) return '';
  if (signIn !== undefined && !canSignIn(signIn))
    return html`<p class="muted">${SIGN_IN_NOT_CONFIGURED[signIn]}</p>`;
  const label = !broken
    ? inbox.provider === 'imap'
      ? 'Change password or servers'
      : 'Change password'
    : signIn === undefined
      ? 'Enter password'
      : `Sign in with ${SIGN_IN_NAMES[signIn].brand}`;
  return html`<form method="post" action="/inboxes/${inbox.id}/connect" style="display:inline">
    ${csrfField(csrf)}<button ${broken ? '' : html`class="secondary"`} type="submit">${label}</button>
  </form>`;
}

/** How Add an inbox tells the sign-in providers this server offers, or that whoever runs it can set them up. */
function signInWords(offered: readonly SignInProvider[]): string {
  if (offered.length === SIGN_INS.length)
    return 'Gmail, or Outlook and Microsoft 365: you sign in with Google or Microsoft instead, and this service never sees that password.';
  if (offered.length === 0)
    return 'Gmail, and Outlook or Microsoft 365, connect by signing in with Google or Microsoft once whoever runs this service has set that up.';
  return offered[0] === 'google'
    ? 'Gmail: you sign in with Google instead, and this service never sees that password.'
    : 'Outlook or Microsoft 365: you sign in with Microsoft instead, and this service never sees that password.';
}

/** The fields of the Add an inbox form, and which field each of InboxService.add's refusals is about. */
const ADD_FIELDS = ['label', 'email', 'provider', 'imapHost', 'imapPort', 'imapUser'] as const;
function fieldOf(message: string): (typeof ADD_FIELDS)[number] {
  return ADD_FIELDS.find((f) => message.startsWith(f)) ?? 'label';
}

/**
 * Inboxes: each one's state in words with the fix, its last sync and the messages in the window, the folders it
 * syncs (changeable), pause/resume, connect or reconnect (a password link), remove; and Add an inbox (IMAP or
 * iCloud, validated by InboxService.add, then straight to the masked password page).
 */
export function registerInboxesPage(app: Hono<WebEnv>, deps: WebDeps): void {
  const { inboxes } = deps;
  const render = async (
    c: Context<WebEnv>,
    account: Account,
    add: {
      /** Why a sign-in could not be started (not set up here, or the provider out of reach). */
      failed?: string;
      errors?: Readonly<Record<string, string>>;
      values?: Readonly<Record<string, string>>;
      /** A sender name refused, and the inbox it was for. */
      senderName?: { readonly inboxId: string; readonly value: string; readonly error: string };
    } = {},
    status: 200 | 400 | 503 = 200,
  ) => {
    const list = await inboxes.all(wholeAccount(account.id));
    // The sign-in forms post here and are sent on to Google or Microsoft: their sign-in pages are a form's target too.
    const signIns = SIGN_INS.filter((p) => inboxes.canSignIn(p));
    const origins = signIns.map((p) => inboxes.signInOrigin(p)).filter((o) => o !== undefined);
    if (origins.length > 0) c.set('formActionTarget', origins.join(' '));
    const folders = new Map<string, FolderStatus[]>();
    for (const i of list) folders.set(i.id, await deps.inboxStatus.folders(i.id));
    const csrf = c.get('csrf');
    const done = c.req.query('done');
    const errors = add.errors ?? {};
    const v = add.values ?? {};
    const fieldError = (name: string) =>
      errors[name] === undefined
        ? ''
        : html`<span class="field-error" id="add-${name}-error" role="alert">${errors[name]}</span>`;
    const invalid = (name: string) =>
      errors[name] === undefined ? '' : html`aria-invalid="true" aria-describedby="add-${name}-error"`;
    return c.html(
      page({
        nonce: c.get('nonce'),
        title: 'Inboxes',
        account,
        csrf,
        body: html`<h1>Inboxes</h1>
          ${notice('ok', done === undefined ? undefined : DONE[done])} ${notice('error', add.failed)}
          ${list.length === 0 ? html`<p class="muted">No inboxes yet. Add one below, or ask your assistant.</p>` : ''}
          ${list.map((inbox) => {
            const i = inboxView(inbox);
            const fs = folders.get(i.id) ?? [];
            const synced = fs.filter((f) => f.selected);
            const last = synced
              .map((f) => f.syncedAt)
              .filter((d): d is Date => d !== null)
              .sort((a, b) => b.getTime() - a.getTime())[0];
            const trouble = problem(inbox);
            return html`<section class="notice" id="${i.id}" data-inbox-id="${i.id}">
              <h2 style="margin-top:0">${i.label}${i.isDemo ? ' (demo)' : ''}</h2>
              <p>
                ${i.email} · ${i.provider} ·
                <strong>${STATUS[i.connectionStatus] ?? i.connectionStatus}</strong>
              </p>
              ${
                inbox.provider === 'imap' && inbox.imapHost !== null
                  ? html`<p class="muted servers">
                      Reads at
                      ${inbox.imapHost}:${String(inbox.imapPort ?? 993)}${
                        inbox.smtpHost === null
                          ? ''
                          : ` · sends through ${inbox.smtpHost}:${String(inbox.smtpPort ?? 587)}`
                      }
                    </p>`
                  : ''
              }
              <p class="sync-state">
                ${
                  last === undefined
                    ? 'Not synced yet.'
                    : html`Last synced
                      ${when(last)}${inbox.lastError === null ? '' : ' (the latest attempt failed)'} ·
                      ${String(synced.reduce((n, f) => n + f.messages, 0))} messages in the window.`
                }
              </p>
              ${trouble === undefined ? '' : html`<p class="problem" role="status">${trouble}</p>`}
              ${
                fs.length === 0
                  ? ''
                  : html`<form method="post" action="/inboxes/${i.id}/folders">
                      ${csrfField(csrf)}
                      <fieldset>
                        <legend>Folders to sync</legend>
                        ${fs.map(
                          (f) =>
                            html`<label style="font-weight:400;margin:.2rem 0"
                              ><input
                                type="checkbox"
                                name="folder"
                                value="${f.id}"
                                ${f.selected ? 'checked' : ''}
                              />
                              ${f.name}${f.selected ? ` (${String(f.messages)})` : ''}</label
                            >`,
                        )}
                      </fieldset>
                      <button class="secondary" type="submit">Sync these folders</button>
                    </form>`
              }
              ${senderNameForm(inbox, csrf, add.senderName?.inboxId === i.id ? add.senderName : undefined)}
              <form
                method="post"
                action="/inboxes/${i.id}/${i.paused ? 'resume' : 'pause'}"
                style="display:inline"
              >
                ${csrfField(csrf)}
                <button class="secondary" type="submit">${i.paused ? 'Resume' : 'Pause'}</button>
              </form>
              ${connectButton(i, csrf, (p) => inboxes.canSignIn(p))}
              <form method="post" action="/inboxes/${i.id}/remove" style="display:inline">
                ${csrfField(csrf)}
                <button class="danger" type="submit" aria-label="Remove ${i.label}">Remove</button>
              </form>
            </section>`;
          })}
          <h2 id="add">Add an inbox</h2>
          <p>
            Any IMAP mailbox, or iCloud: you enter the password on the next page; it is stored encrypted and
            never shown again. ${signInWords(signIns)}
          </p>
          ${Object.keys(errors).length > 0 ? notice('error', 'The inbox was not added: see the message next to the field.') : ''}
          <form method="post" action="/inboxes/add" novalidate>
            ${csrfField(csrf)}
            <label for="add-label">Name</label>
            <input id="add-label" name="label" value="${v['label'] ?? ''}" ${invalid('label')} />
            ${fieldError('label')}
            <label for="add-email">Email address</label>
            <input id="add-email" name="email" type="email" value="${v['email'] ?? ''}" ${invalid('email')} />
            ${fieldError('email')}
            <label for="add-provider">Provider</label>
            <select id="add-provider" name="provider">
              ${signIns.map(
                (p) =>
                  html`<option value="${p}" ${v['provider'] === p ? 'selected' : ''}>
                    ${SIGN_IN_WHAT[p]}
                  </option>`,
              )}
              <option
                value="imap"
                ${v['provider'] === undefined || v['provider'] === 'imap' ? 'selected' : ''}
              >
                IMAP
              </option>
              <option value="icloud" ${v['provider'] === 'icloud' ? 'selected' : ''}>iCloud</option>
            </select>
            <label for="add-imapHost">IMAP server (for IMAP only)</label>
            <input id="add-imapHost" name="imapHost" value="${v['imapHost'] ?? ''}" ${invalid('imapHost')} />
            ${fieldError('imapHost')}
            <label for="add-imapPort">IMAP port</label>
            <input
              id="add-imapPort"
              name="imapPort"
              inputmode="numeric"
              value="${v['imapPort'] ?? '993'}"
              ${invalid('imapPort')}
            />
            ${fieldError('imapPort')}
            <label for="add-imapUser">User name (empty: the email address)</label>
            <input id="add-imapUser" name="imapUser" value="${v['imapUser'] ?? ''}" ${invalid('imapUser')} />
            ${fieldError('imapUser')}
            <button type="submit">Add and connect</button>
          </form>`,
      }),
      status,
    );
  };

  app.get('/inboxes', requireSignIn, (c) => render(c, signedInAccount(c)));

  for (const action of ['pause', 'resume'] as const) {
    app.post(`/inboxes/:id/${action}`, requireSignIn, async (c) => {
      const account = signedInAccount(c);
      await inboxes.setPaused(account.id, c.req.param('id'), action === 'pause');
      return c.redirect('/inboxes', 303);
    });
  }

  app.post('/inboxes/:id/sender-name', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const f = await formFields(c, 'senderName');
    const set = await inboxes.setSenderName(account.id, c.req.param('id'), f.senderName);
    if (set.ok) return c.redirect(`/inboxes?done=sender_name#${set.value.id}`, 303);
    if (set.error.code !== 'invalid_arguments') return c.redirect('/inboxes', 303);
    return render(
      c,
      account,
      { senderName: { inboxId: c.req.param('id'), value: f.senderName, error: set.error.message } },
      400,
    );
  });

  /** On to the provider's sign-in for this inbox, or this page saying why not. */
  const signInAt = async (
    c: Context<WebEnv>,
    account: Account,
    inboxId: string,
    provider: SignInProvider,
  ) => {
    const started = await inboxes.startSignIn(wholeAccount(account.id), inboxId, provider);
    if (started.ok) return c.redirect(started.value.url, 303);
    return render(
      c,
      account,
      { failed: started.error.message },
      started.error.code === 'provider_error' ? 503 : 400,
    );
  };

  app.post('/inboxes/:id/connect', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const owned = await inboxes.owned(wholeAccount(account.id), c.req.param('id'));
    if (!owned.ok) return c.redirect('/inboxes', 303);
    const signIn = signInOf(owned.value);
    if (signIn !== undefined) return signInAt(c, account, owned.value.id, signIn);
    const link = await inboxes.startSecretCapture(wholeAccount(account.id), owned.value.id);
    return link.ok
      ? c.redirect(new URL(link.value.url).pathname + new URL(link.value.url).search, 303)
      : c.redirect('/inboxes', 303);
  });

  app.post('/inboxes/:id/folders', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const owned = await inboxes.owned(wholeAccount(account.id), c.req.param('id'));
    if (!owned.ok) return c.redirect('/inboxes', 303);
    const body = await formBody(c, { all: true });
    const raw = body['folder'];
    const ids = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter(
      (x): x is string => typeof x === 'string',
    );
    const r = await deps.inboxStatus.select(owned.value.id, ids);
    if (!r.ok) return c.redirect(`/inboxes#${owned.value.id}`, 303);
    deps.syncSoon(owned.value);
    return c.redirect('/inboxes?done=folders', 303);
  });

  app.post('/inboxes/add', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const f = await formFields(c, ...ADD_FIELDS);
    const provider = PROVIDERS.find((p) => p === f.provider) ?? 'imap';
    const port = f.imapPort.trim() === '' ? undefined : Number(f.imapPort);
    const added = await inboxes.add(account.id, {
      label: f.label,
      provider,
      email: f.email,
      ...(provider === 'imap' && { imapHost: f.imapHost }),
      ...(provider === 'imap' && port !== undefined && { imapPort: port }),
      ...(f.imapUser.trim() !== '' && { imapUser: f.imapUser }),
    });
    if (!added.ok)
      return render(
        c,
        account,
        { errors: { [fieldOf(added.error.message)]: added.error.message }, values: f },
        400,
      );
    const signIn = signInOf({ provider });
    if (signIn !== undefined) return signInAt(c, account, added.value.inbox.id, signIn);
    // The same mailbox added again (decision 0043): its form asks for the password of the inbox already there.
    const link = await inboxes.startSecretCapture(wholeAccount(account.id), added.value.inbox.id);
    return link.ok
      ? c.redirect(new URL(link.value.url).pathname + new URL(link.value.url).search, 303)
      : c.redirect('/inboxes', 303);
  });

  app.post('/inboxes/:id/remove', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    await formFields(c);
    await inboxes.remove(account.id, c.req.param('id'));
    return c.redirect('/inboxes?done=removed', 303);
  });
}
