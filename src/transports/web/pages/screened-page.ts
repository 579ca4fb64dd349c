import { html } from 'hono/html';
import type { Context, Hono } from 'hono';
import { wholeAccount } from '../../../core/auth/inbox-reach.ts';
import type { Principal } from '../../../core/auth/principal.ts';
import { parseInboxId } from '../../../core/inboxes/inbox.ts';
import type { Resolved, ScreeningError } from '../../../core/screening/screening-service.ts';
import type { Result } from '../../../lib/result.ts';
import { formFields } from '../form.ts';
import { csrfField, notice, page, when } from '../layout.ts';
import { personIn, recordPersonCall } from '../person.ts';
import { requireSignIn, signedInAccount } from '../session.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';

const PATH = '/screened';
const PAGE_SIZE = 25;
/** The periods the page offers, in days; 7 unless another is chosen. */
const PERIODS = [7, 30, 90] as const;

/** What the person's press did, by the key the redirect carries: never words from the address bar. */
const DONE: Readonly<Record<string, string>> = {
  rescued: 'Rescued: it is back in your inbox, and mail from its sender will not be screened again.',
  reported_domain:
    'Reported: it is in Spam, and its sender’s domain is blocked — new mail from it goes to Screened.',
  reported_address:
    'Reported: it is in Spam, and its sender’s address is blocked — not the whole domain, which is a big free-mail one, yours, or one a VIP or a known-good sender uses.',
  reported_spared:
    'Reported: it is in Spam. Nothing was blocked: your mail provider found its sender forged, and you get real mail from that sender.',
  reported_none:
    'Reported: it is in Spam. Its sender address is not an ordinary one, so nothing was blocked.',
};
const FAILED: Readonly<Record<string, string>> = {
  screened_not_found: 'That message is no longer in Screened: it was moved, rescued or reported meanwhile.',
  lease_held: 'An agent is in the middle of a triage pass on that inbox. Try again when it ends.',
  inbox_paused: 'That inbox is paused. Resume it under Inboxes first.',
  provider_error: 'The mail server refused or did not answer. Try again in a moment.',
  // A sender made a VIP since the message was screened: moving VIP mail to Spam is never done by a button.
  vip_confirmation_required:
    'Its sender is one of your VIPs, so it was not moved to Spam. Rescue it, or move it with your mail client.',
  needs_reconnect: 'That inbox needs to be connected again: see Inboxes.',
};

/**
 * Screened: the mail agents and the person's blocklist moved to Screened, newest first, with Rescue and Report — the
 * person's own review, without an agent or a host that shows interactive views (DESIGN.md §1). The same services as
 * `rescue_screened` and `report_screened`, as the person: every inbox, the lists changed everywhere, the lease rules
 * of any change (another agent's triage pass refuses it), and each press in Activity as the person's.
 */
export function registerScreenedPage(app: Hono<WebEnv>, deps: WebDeps): void {
  app.get(PATH, requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const days = period(c.req.query('days'));
    const offset = Math.max(0, Math.min(Number.parseInt(c.req.query('offset') ?? '0', 10) || 0, 1_000_000));
    const inboxes = await deps.inboxes.all(wholeAccount(account.id));
    // One inbox, when the person picked one of theirs; every inbox otherwise (an id not theirs is not a choice).
    const only = inboxes.find((i) => i.id === c.req.query('inbox'));
    const review = await deps.screening.review(only === undefined ? inboxes : [only], {
      since: new Date(deps.clock.now().getTime() - days * 86_400_000),
      limit: PAGE_SIZE,
      offset,
    });
    const labels = new Map<string, string>(inboxes.map((i) => [i.id, i.label]));
    const csrf = c.get('csrf');
    const done = c.req.query('done');
    const failed = c.req.query('error');
    /** This page with one choice changed: the period, the inbox (null: all) or the page. */
    const link = (o: { days?: number; offset?: number; inbox?: string | null }) => {
      const inbox = o.inbox === undefined ? only?.id : o.inbox;
      const q = new URLSearchParams({ days: String(o.days ?? days) });
      if (inbox !== undefined && inbox !== null) q.set('inbox', inbox);
      if (o.offset !== undefined && o.offset > 0) q.set('offset', String(o.offset));
      return `${PATH}?${q.toString()}`;
    };
    const choice = (current: boolean, href: string, label: string) =>
      current
        ? html`<strong aria-current="page" style="margin-right:.75rem">${label}</strong>`
        : html`<a href="${href}">${label}</a>`;
    const { rows, total } = review;
    return c.html(
      page({
        nonce: c.get('nonce'),
        title: 'Screened',
        account,
        csrf,
        body: html`<h1>Screened</h1>
          ${notice('ok', done === undefined ? undefined : DONE[done])}
          ${notice('error', failed === undefined ? undefined : (FAILED[failed] ?? 'That did not work.'))}
          <p>
            Mail an agent judged junk, or your blocked senders sent, waits here — never deleted.
            <strong>Rescue</strong> puts a message back in your inbox and marks its sender good;
            <strong>Report</strong> moves it to Spam and blocks its sender.
          </p>
          <nav aria-label="Period" class="pager">
            ${PERIODS.map((d) => choice(d === days, link({ days: d }), `Last ${String(d)} days`))}
          </nav>
          ${
            inboxes.length < 2
              ? ''
              : html`<nav aria-label="Inbox" class="pager">
                  ${choice(only === undefined, link({ inbox: null }), 'All inboxes')}
                  ${inboxes.map((i) => choice(only?.id === i.id, link({ inbox: i.id }), i.label))}
                </nav>`
          }
          <p data-screened-total>
            ${
              total === 0
                ? `Nothing was screened in the last ${String(days)} days that is still in Screened.`
                : `${String(total)} message${total === 1 ? '' : 's'} screened in the last ${String(days)} days ${total === 1 ? 'is' : 'are'} waiting in Screened.`
            }
          </p>
          ${
            rows.length === 0
              ? ''
              : html`<ul class="screened">
                  ${rows.map((r) => {
                    const subject = r.subject === '' ? '(no subject)' : r.subject;
                    const who = r.from.name === '' ? r.from.address : `${r.from.name} <${r.from.address}>`;
                    const action = (to: 'rescue' | 'report', label: string) =>
                      html`<form method="post" action="${PATH}/${to}" style="display:inline">
                        ${csrfField(csrf)}
                        <input type="hidden" name="inbox" value="${r.inboxId}" />
                        <input type="hidden" name="id" value="${r.id}" />
                        <input type="hidden" name="days" value="${String(days)}" />
                        <input type="hidden" name="shown" value="${only?.id ?? ''}" />
                        <button class="secondary" type="submit" aria-label="${label}: ${subject}">
                          ${label}
                        </button>
                      </form>`;
                    return html`<li data-screened-id="${r.id}">
                      <strong>${subject}</strong><br />
                      <span class="muted"
                        >From ${who} · ${labels.get(r.inboxId) ?? 'an inbox'} · screened ${when(r.screenedAt)}
                        ${
                          r.source === 'blocklist'
                            ? '· by your blocked senders'
                            : r.reason === null || r.reason === ''
                              ? ''
                              : html`· the agent said: “${r.reason}”`
                        }</span
                      ><br />
                      ${action('rescue', 'Rescue')} ${action('report', 'Report')}
                    </li>`;
                  })}
                </ul>`
          }
          <nav aria-label="Pages" class="pager">
            ${offset > 0 ? html`<a href="${link({ offset: Math.max(0, offset - PAGE_SIZE) })}">Newer</a>` : ''}
            ${review.nextOffset === null ? '' : html`<a href="${link({ offset: review.nextOffset })}">Older</a>`}
          </nav>`,
      }),
    );
  });

  /** One press: the service as the person, recorded in Activity, and back to the page saying what happened. */
  const press =
    <T extends Resolved>(
      tool: 'rescue_screened' | 'report_screened',
      run: (person: Principal, inboxId: string, id: string) => Promise<Result<T, ScreeningError>>,
      done: (value: T) => string,
    ) =>
    async (c: Context<WebEnv>) => {
      const { inbox, id, days, shown } = await formFields(c, 'inbox', 'id', 'days', 'shown');
      const person = personIn(signedInAccount(c));
      const started = performance.now();
      const r = await run(person, inbox, id);
      // In Activity as the person's, with the move's undo handle: Activity's Undo puts it back in Screened.
      await recordPersonCall(deps, person, {
        tool,
        inboxId: parseInboxId(inbox) ?? null,
        outcome: r.ok ? 'ok' : r.error.code,
        undoId: r.ok ? r.value.undoId : null,
        started,
      });
      return c.redirect(
        after({ days, shown }, r.ok ? { done: done(r.value) } : { error: r.error.code }),
        303,
      );
    };

  app.post(
    `${PATH}/rescue`,
    requireSignIn,
    press(
      'rescue_screened',
      (p, inbox, id) => deps.screening.rescue(p, inbox, id),
      () => 'rescued',
    ),
  );
  app.post(
    `${PATH}/report`,
    requireSignIn,
    press(
      'report_screened',
      (p, inbox, id) => deps.screening.report(p, inbox, id),
      (v) => `reported_${v.spared ? 'spared' : v.blocked === null ? 'none' : v.blocked.kind}`,
    ),
  );
}

/** The period asked for, if it is one the page offers. */
function period(asked: string | undefined): number {
  return PERIODS.find((d) => String(d) === asked) ?? PERIODS[0];
}

/** Back to the page, in the period and inbox the press came from, saying what happened. */
function after(from: { days: string; shown: string }, said: { done: string } | { error: string }): string {
  const [key, value] = 'done' in said ? ['done', said.done] : ['error', said.error];
  const inbox = parseInboxId(from.shown) === undefined ? '' : `&inbox=${from.shown}`;
  return `${PATH}?days=${String(period(from.days))}${inbox}&${key}=${encodeURIComponent(value)}`;
}
