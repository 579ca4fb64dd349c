import { html } from 'hono/html';
import type { Context, Hono } from 'hono';
import { normaliseEmail } from '../../../core/accounts/password-hasher.ts';
import { unseenNotice } from '../../../core/drafts/draft-input.ts';
import { fromLine } from '../../../core/inboxes/inbox.ts';
import { WAITING_SHOWN } from '../../../core/approvals/approval-code.ts';
import { agentNames } from '../agent-names.ts';
import { keepFlash, takeFlash } from '../flash.ts';
import { formFields } from '../form.ts';
import { csrfField, notice, page, when } from '../layout.ts';
import { requireSignIn, signedInAccount } from '../session.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';
import { wholeAccount } from '../../../core/auth/inbox-reach.ts';

const DONE: Readonly<Record<string, string>> = {
  sent: 'Sent. It is in your Sent folder.',
  unsubscribed: 'Unsubscribed: the sender’s server was asked once and confirmed it.',
  kept: 'Kept: no unsubscribe request will be made for it.',
  discarded: 'Discarded: that draft will not be sent. The draft itself stays in your Drafts.',
};
const FAILED: Readonly<Record<string, string>> = {
  approval_used: 'That was already done or discarded: nothing more was sent.',
  approval_expired: 'That send expired (they last 24 hours): ask your agent to offer it again.',
  approval_invalid: 'That draft changed since it was offered: ask your agent to offer it again.',
  send_disabled: 'Sending is off. Turn it on under Settings → Sending, VIPs and triage first.',
  provider_error: 'The mail server refused or did not answer. Check your Sent folder before trying again.',
  // What the sender's server made of an unsubscribe request the person sent from here (confirm_unsubscribe's words).
  unsubscribe_rejected:
    'The unsubscribe request was sent, but the sender’s server refused it. You may need to unsubscribe on their website.',
  unsubscribe_refused:
    'The request was not sent: the link points somewhere this service never contacts (a private or unsafe address).',
  unsubscribe_unknown:
    'The unsubscribe request was sent but got no answer, so it is not known whether it worked. It will not be sent again on its own.',
};

/**
 * Waiting for you: the sends agents asked for, each with who asked and when; the person sends one (the in-app
 * confirmation path: SendService.sendFromApp, one conditional claim — a double click sends once) or discards it.
 */
/**
 * The addresses a send just made did not reach, as the redirect after it carries them: shown only when every one is
 * an address (at most ten), so a link made elsewhere cannot put other words on the page.
 */
function refusedShown(param: string | undefined): string | undefined {
  if (param === undefined || param.length > 2600) return undefined;
  const addresses = param.split(',');
  if (addresses.length > 10 || !addresses.every((a) => normaliseEmail(a) !== undefined)) return undefined;
  return addresses.join(', ');
}

/**
 * The words of the send just made, once — what went wrong in filing it (no copy in Sent, a draft left behind), or
 * why the server did not take it — carried to the page sealed (flash.ts): a link cannot put them there.
 */
const sentWordsAt = (deps: WebDeps) => ({
  name: 'it_sent_filing',
  path: '/waiting',
  flash: deps.flash,
  cookies: deps.cookies,
});

function keepSentWords(c: Context<WebEnv>, deps: WebDeps, accountId: string, words: readonly string[]): void {
  if (words.length > 0) keepFlash(c, sentWordsAt(deps), accountId, JSON.stringify(words));
}

/** The words kept by keepSentWords, once, checked for their shape. */
function sentFlash(c: Context<WebEnv>, deps: WebDeps, accountId: string): string[] {
  const opened = takeFlash(c, sentWordsAt(deps), accountId);
  if (opened === undefined) return [];
  const words: unknown = JSON.parse(opened);
  return Array.isArray(words) && words.every((w) => typeof w === 'string') ? words.slice(0, 5) : [];
}

/** Said under a list cut at its newest `WAITING_SHOWN`: the rest are there, and expire if left. */
function moreWaiting(more: boolean, what: string) {
  return more
    ? html`<p class="muted" data-more-waiting>
        These are the newest ${String(WAITING_SHOWN)}; more ${what} are waiting behind them. Each expires 24
        hours after it was asked for.
      </p>`
    : '';
}

export function registerWaitingPage(app: Hono<WebEnv>, deps: WebDeps): void {
  app.get('/waiting', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const [sends, unsubscribeList, inboxes] = await Promise.all([
      deps.sending.waiting(account.id),
      deps.unsubscribe.waiting(account.id),
      deps.inboxes.all(wholeAccount(account.id)),
    ]);
    const waiting = sends.items;
    const unsubscribes = unsubscribeList.items;
    // Who asked, and whether that agent has been revoked or disconnected since: the person deciding should know.
    const { who } = await agentNames(deps, account.id, [
      ...waiting.map((w) => w.pending.requestedBy),
      ...unsubscribes.map((u) => u.requestedBy),
    ]);
    const inboxNames = new Map<string, string>(inboxes.map((i) => [i.id, i.label]));
    // What the recipients will see in From (decision 0088), and the inbox it goes from.
    const senders = new Map<string, string>(inboxes.map((i) => [i.id, `${fromLine(i)} (${i.label})`]));
    const csrf = c.get('csrf');
    const done = c.req.query('done');
    const failed = c.req.query('error');
    const refused = refusedShown(c.req.query('refused'));
    const filing = sentFlash(c, deps, account.id);
    return c.html(
      page({
        nonce: c.get('nonce'),
        title: 'Waiting for you',
        account,
        csrf,
        body: html`<h1>Waiting for you</h1>
          ${notice('ok', done === undefined ? undefined : DONE[done])}
          ${notice(
            'error',
            failed === undefined || (failed === 'provider_error' && filing.length > 0)
              ? undefined
              : (FAILED[failed] ?? 'That did not work.'),
          )}
          ${notice(
            'error',
            refused === undefined
              ? undefined
              : `Sent, but not to ${refused}: your mail server refused ${refused.includes(',') ? 'those addresses' : 'that address'}, so the message did not go there.${filing.length === 0 ? ' It is in your Sent folder.' : ''}`,
          )}
          ${notice('error', filing.length === 0 ? undefined : filing.join(' '))}
          ${
            waiting.length === 0
              ? html`<p class="muted">Nothing is waiting for you.</p>`
              : waiting.map(
                  ({ pending, draft }) =>
                    html`<section class="notice" data-pending-send="${pending.id}">
                      <h2 style="margin-top:0">${draft.subject === '' ? '(no subject)' : draft.subject}</h2>
                      <p>
                        To <strong>${draft.to}</strong> · from ${senders.get(draft.inboxId) ?? 'an inbox'} ·
                        asked by ${who(pending.requestedBy)} at ${when(pending.createdAt)} · until
                        ${when(pending.expiresAt)}
                      </p>
                      ${notice('error', unseenNotice(draft))}
                      <pre style="white-space:pre-wrap">${draft.body}</pre>
                      <form method="post" action="/waiting/send" style="display:inline">
                        ${csrfField(csrf)}
                        <input type="hidden" name="id" value="${pending.id}" />
                        <button type="submit">Send</button>
                      </form>
                      <form method="post" action="/waiting/discard" style="display:inline">
                        ${csrfField(csrf)}
                        <input type="hidden" name="id" value="${pending.id}" />
                        <button class="secondary" type="submit">Discard</button>
                      </form>
                    </section>`,
                )
          }
          ${moreWaiting(sends.more, 'emails')}
          <h2>Unsubscribe requests</h2>
          ${
            unsubscribes.length === 0
              ? html`<p class="muted">No unsubscribe request is waiting.</p>`
              : unsubscribes.map(
                  (u) =>
                    html`<section class="notice" data-pending-unsubscribe="${u.id}">
                      <p style="margin-top:0">
                        Unsubscribe from <strong>${u.senderKey}</strong> (${u.senderAddress}) in
                        ${inboxNames.get(u.inboxId) ?? 'an inbox'} · asked by ${who(u.requestedBy)} at
                        ${when(u.createdAt)} · one request to ${new URL(u.url).host}
                      </p>
                      <form method="post" action="/waiting/unsubscribe" style="display:inline">
                        ${csrfField(csrf)}
                        <input type="hidden" name="id" value="${u.id}" />
                        <button type="submit">Unsubscribe</button>
                      </form>
                      <form method="post" action="/waiting/keep" style="display:inline">
                        ${csrfField(csrf)}
                        <input type="hidden" name="id" value="${u.id}" />
                        <button class="secondary" type="submit">Discard</button>
                      </form>
                    </section>`,
                )
          }
          ${moreWaiting(unsubscribeList.more, 'unsubscribe requests')}`,
      }),
    );
  });

  app.post('/waiting/unsubscribe', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const { id } = await formFields(c, 'id');
    const r = await deps.unsubscribe.confirmFromApp(account.id, id);
    if (!r.ok) return c.redirect(`/waiting?error=${r.error.code}`, 303);
    // The request went (or was refused before going): say what the sender's server made of it, not only that it went.
    const status = r.value.pending.status;
    return c.redirect(
      status === 'done' ? '/waiting?done=unsubscribed' : `/waiting?error=unsubscribe_${status}`,
      303,
    );
  });

  app.post('/waiting/keep', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const { id } = await formFields(c, 'id');
    const discarded = await deps.unsubscribe.discard(account.id, id);
    return c.redirect(discarded ? '/waiting?done=kept' : '/waiting?error=approval_used', 303);
  });

  app.post('/waiting/send', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const { id } = await formFields(c, 'id');
    const r = await deps.sending.sendFromApp(account.id, id);
    if (!r.ok) {
      if (r.error.code === 'provider_error' && r.error.status === 'not_sent')
        keepSentWords(c, deps, account.id, [
          `The email was not sent: ${r.error.reason}. Nothing went out; you can send it again once that is fixed.`,
        ]);
      return c.redirect(`/waiting?error=${r.error.code}`, 303);
    }
    const refused = r.value.refusedRecipients;
    keepSentWords(c, deps, account.id, r.value.warnings);
    return c.redirect(
      refused.length === 0
        ? r.value.warnings.length === 0
          ? '/waiting?done=sent'
          : '/waiting'
        : `/waiting?refused=${encodeURIComponent(refused.join(','))}`,
      303,
    );
  });

  app.post('/waiting/discard', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const { id } = await formFields(c, 'id');
    const discarded = await deps.sending.discard(account.id, id);
    return c.redirect(discarded ? '/waiting?done=discarded' : '/waiting?error=approval_used', 303);
  });
}
