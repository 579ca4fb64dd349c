import { html } from 'hono/html';
import type { Hono } from 'hono';
import type { InboxService } from '../../../core/inboxes/inbox-service.ts';
import { formFields } from '../form.ts';
import { csrfField, notice, page } from '../layout.ts';
import { requireSignIn, signedInAccount } from '../session.ts';
import type { WebEnv } from '../web-env.ts';

const STATUS: Record<string, string> = {
  connected: 'Connected',
  not_connected: 'Not connected',
  needs_reconnect: 'Needs reconnecting',
  paused: 'Paused',
};

/** Inboxes: status of each, pause/resume, connect or reconnect (a password link), remove. */
export function registerInboxesPage(app: Hono<WebEnv>, inboxes: InboxService): void {
  app.get('/inboxes', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const list = await inboxes.list(account.id);
    const csrf = c.get('csrf');
    const done = c.req.query('done');
    return c.html(
      page({
        title: 'Inboxes',
        account,
        csrf,
        body: html`<h1>Inboxes</h1>
          ${notice('ok', done === 'removed' ? 'The inbox was removed from Inbox Triage. Your mailbox itself is untouched.' : undefined)}
          ${list.length === 0 ? html`<p class="muted">No inboxes yet. Ask your assistant to connect one.</p>` : ''}
          ${list.map(
            (i) =>
              html`<section class="notice" data-inbox-id="${i.id}">
                <h2 style="margin-top:0">${i.label}${i.isDemo ? ' (demo)' : ''}</h2>
                <p>
                  ${i.email} · ${i.provider} ·
                  <strong>${STATUS[i.connectionStatus] ?? i.connectionStatus}</strong>
                </p>
                <form
                  method="post"
                  action="/inboxes/${i.id}/${i.paused ? 'resume' : 'pause'}"
                  style="display:inline"
                >
                  ${csrfField(csrf)}
                  <button class="secondary" type="submit">${i.paused ? 'Resume' : 'Pause'}</button>
                </form>
                ${
                  !i.isDemo &&
                  (i.provider === 'imap' || i.provider === 'icloud') &&
                  (i.connectionStatus === 'not_connected' || i.needsReconnect)
                    ? html`<form method="post" action="/inboxes/${i.id}/connect" style="display:inline">
                        ${csrfField(csrf)}<button type="submit">Enter password</button>
                      </form>`
                    : ''
                }
                <form method="post" action="/inboxes/${i.id}/remove" style="display:inline">
                  ${csrfField(csrf)}
                  <button class="danger" type="submit" aria-label="Remove ${i.label}">Remove</button>
                </form>
              </section>`,
          )}`,
      }),
    );
  });

  for (const action of ['pause', 'resume'] as const) {
    app.post(`/inboxes/:id/${action}`, requireSignIn, async (c) => {
      const account = signedInAccount(c);
      await inboxes.setPaused(account.id, c.req.param('id'), action === 'pause');
      return c.redirect('/inboxes', 303);
    });
  }

  app.post('/inboxes/:id/connect', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const link = await inboxes.startSecretCapture(account.id, c.req.param('id'));
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
