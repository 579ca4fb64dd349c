import { html } from 'hono/html';
import type { Hono } from 'hono';
import type { ActivityRow, ChangeSummary } from '../../../core/audit/activity-service.ts';
import { agentNames } from '../agent-names.ts';
import { formFields } from '../form.ts';
import { personIn, recordPersonCall } from '../person.ts';
import { csrfField, notice, page } from '../layout.ts';
import { requireSignIn, signedInAccount } from '../session.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';
import { wholeAccount } from '../../../core/auth/inbox-reach.ts';

const PAGE_SIZE = 50;
const when = (d: Date) => `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
const plural = (n: number, one: string) => `${String(n)} ${one}${n === 1 ? '' : 's'}`;

/** What each tool does, in words, when the call changed nothing that has an undo record to describe it. */
export const TOOL_WORDS: Readonly<Record<string, string>> = {
  propose_connection: 'Suggested how to connect an inbox',
  add_inbox: 'Added an inbox',
  start_imap_secret_capture: 'Asked you for an inbox password',
  start_google_oauth: 'Asked you to sign in to Google',
  start_microsoft_oauth: 'Asked you to sign in to Microsoft',
  get_connection_status: 'Checked an inbox connection',
  trash_message: 'Moved a message to Trash',
  mark_as_spam: 'Moved a message to Spam',
  archive_messages: 'Archived messages',
  act_on_messages: 'Changed messages',
  apply_labels: 'Labelled messages',
  remove_labels: 'Unlabelled messages',
  star_messages: 'Starred messages',
  get_triage_activity: 'Looked at triage passes',
  list_inboxes: 'Looked at your inboxes',
  sync_inbox: 'Synced an inbox',
  list_folders: 'Listed folders',
  list_messages: 'Listed messages',
  show_inbox: 'Showed the inbox',
  get_message: 'Read a message',
  search_mailbox: 'Searched a mailbox',
  load_older_messages: 'Loaded older messages',
  get_attachment: 'Opened an attachment',
  list_labels: 'Listed labels',
  create_draft: 'Wrote a draft',
  show_draft: 'Showed a draft',
  update_draft_from_card: 'You edited a draft on its card',
  send_draft_from_card: 'You sent a draft from its card',
  send_draft: 'Sent a draft',
  set_send_enabled: 'Changed the send switch',
  begin_triage: 'Started a triage pass',
  heartbeat_triage: 'Kept its triage pass going',
  end_triage: 'Ended a triage pass',
  undo_action: 'Undid a change',
  add_vip: 'Added VIPs',
  remove_vip: 'Removed VIPs',
  list_vips: 'Looked at your VIPs',
  get_triage_profile: 'Read your triage profile',
  update_triage_profile: 'Changed your triage profile',
  review_unsubscribes: 'Reviewed mailing lists',
  propose_unsubscribe: 'Asked to unsubscribe from a list',
  confirm_unsubscribe: 'Unsubscribed from a list',
  screen_junk: 'Looked for junk',
  confirm_screening: 'Screened junk',
  review_screened: 'Reviewed Screened mail',
  show_screened: 'Showed Screened mail',
  rescue_screened: 'Rescued a screened message',
  report_screened: 'Reported a screened message',
};

/** A change described from its undo record, in words (without the closing full stop). */
function changeWords(change: ChangeSummary): string {
  if (change.kind === 'move')
    return `Moved ${plural(change.messages, 'message')}${change.from === null ? '' : ` from ${change.from}`}${
      change.to === null ? '' : ` to ${change.to}`
    }`;
  const star = change.added.includes('\\Flagged')
    ? 'Starred'
    : change.removed.includes('\\Flagged')
      ? 'Unstarred'
      : '';
  const labels = [...change.added, ...change.removed].filter((f) => f !== '\\Flagged');
  return `${star !== '' ? star : change.added.length > 0 ? 'Labelled' : 'Unlabelled'} ${plural(change.messages, 'message')}${
    labels.length > 0 && star === '' ? ` (${labels.join(', ')})` : ''
  }`;
}

/**
 * Refusals worth saying in full: an agent trying to loosen the person's own safeguards (decision 0102) is what a
 * message telling it to would look like; one refused a day's drafts (0126) or new labels (0146), what a loop looks like.
 */
const REFUSAL_WORDS: Readonly<Record<string, string>> = {
  'update_triage_profile:human_approval_required':
    'Tried to turn off confirming sends and unsubscribes in the app: refused, only you can do that.',
  'update_triage_profile:vip_confirmation_required':
    'Tried to take VIPs off your triage profile without asking you: refused.',
  // Decision 0126: an agent writing this many drafts in a day may be caught in a loop.
  'create_draft:rate_limited':
    'Tried to write more drafts than an inbox takes in a day: refused. An agent writing this many may be stuck repeating itself.',
  // Decision 0146: likewise new labels, each one made in the mailbox's label list.
  ...Object.fromEntries(
    ['act_on_messages', 'apply_labels', 'confirm_screening'].map((tool) => [
      `${tool}:rate_limited`,
      'Tried to make more new labels than an inbox takes in a day: refused. An agent making this many may be stuck repeating itself.',
    ]),
  ),
};

/** One row in words: what changed (from its undo record), else what the tool does; then how it ended. */
function words(row: ActivityRow): string {
  const { entry, change } = row;
  const what = change !== null ? changeWords(change) : (TOOL_WORDS[entry.tool] ?? `Used ${entry.tool}`);
  if (entry.outcome === 'ok') return `${what}.`;
  // Decision 0141: an agent trying what the person has not let it do is worth saying plainly.
  if (entry.outcome === 'not_allowed')
    return `${TOOL_WORDS[entry.tool] ?? entry.tool}: refused, you have not allowed this agent to do that.`;
  return (
    REFUSAL_WORDS[`${entry.tool}:${entry.outcome}`] ??
    `${TOOL_WORDS[entry.tool] ?? entry.tool}: refused (${entry.outcome.replaceAll('_', ' ')}).`
  );
}

/** The Undo button of one handle (the same form for logged and interrupted changes). */
const undoButton = (csrf: string, undoId: string) =>
  html`<form method="post" action="/settings/activity/undo">
    ${csrfField(csrf)}
    <input type="hidden" name="undoId" value="${undoId}" />
    <button type="submit">Undo</button>
  </form>`;

/**
 * Settings → Activity: what agents did, newest first, a page at a time, narrowed by inbox, agent or tool; each row
 * in words, and an Undo button on changes that can still be undone — the same UndoService and rules as
 * `undo_action`, recorded as done by the person. Never message content.
 */
export function registerActivityPage(app: Hono<WebEnv>, deps: WebDeps): void {
  app.get('/settings/activity', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const q = {
      inbox: c.req.query('inbox') ?? '',
      agent: c.req.query('agent') ?? '',
      tool: c.req.query('tool') ?? '',
    };
    const offset = Math.max(0, Math.trunc(Number(c.req.query('offset') ?? '0')) || 0);
    const [{ rows, total }, interrupted, inboxes] = await Promise.all([
      deps.activity.page(account.id, {
        ...(q.inbox !== '' && { inboxId: q.inbox }),
        ...(q.agent !== '' && { credentialId: q.agent }),
        ...(q.tool !== '' && { tool: q.tool }),
        limit: PAGE_SIZE,
        offset,
      }),
      deps.activity.interrupted(account.id),
      deps.inboxes.list(wholeAccount(account.id)),
    ]);
    const inboxNames = new Map<string, string>(inboxes.map((i) => [i.id, i.label]));
    // Each agent by the name the person knows it by (an OAuth agent's client, not its id), marked when revoked since.
    const agents = await agentNames(
      deps,
      account.id,
      rows.map((r) => ({
        kind: r.entry.credentialKind,
        id: r.entry.credentialId,
        clientId: r.entry.clientId,
      })),
      { choices: true },
    );
    const who = (kind: string, id: string, clientId: string | null) => {
      const words = agents.who({ kind, id, clientId });
      return `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
    };
    const link = (o: number) => {
      const p = new URLSearchParams({ ...q, offset: String(o) });
      for (const [k, v] of [...p]) if (v === '' || (k === 'offset' && v === '0')) p.delete(k);
      const s = p.toString();
      return `/settings/activity${s === '' ? '' : `?${s}`}`;
    };
    const done = c.req.query('undone');
    const labelsGone = Number(c.req.query('labels') ?? '0');
    const failed = c.req.query('error');
    const csrf = c.get('csrf');
    return c.html(
      page({
        nonce: c.get('nonce'),
        title: 'Activity',
        account,
        csrf,
        body: html`<h1>Agent activity</h1>
          <p>Every tool call an agent made for you, newest first. Message content is never recorded.</p>
          ${notice(
            'ok',
            done === undefined
              ? undefined
              : `Undone: ${plural(Number(done), 'message')} put back${
                  labelsGone > 0
                    ? `, and ${labelsGone === 1 ? 'the label' : plural(labelsGone, 'label')} the change had made taken off your label list`
                    : ''
                }.`,
          )}
          ${notice('error', failed === undefined ? undefined : (UNDO_ERRORS[failed] ?? 'That change could not be undone.'))}
          ${
            interrupted.length === 0
              ? ''
              : html`<section aria-labelledby="interrupted">
                  <h2 id="interrupted">Changes that did not finish</h2>
                  <p>
                    The service stopped while an agent was changing these messages, so the agent never heard
                    back. What was done can still be undone.
                  </p>
                  <ul>
                    ${interrupted.map(
                      (i) =>
                        html`<li data-undo="${i.undoId}">
                          ${when(i.at)} — ${changeWords(i.change)}. ${undoButton(csrf, i.undoId)}
                        </li>`,
                    )}
                  </ul>
                </section>`
          }
          <form method="get" action="/settings/activity" class="filters">
            <label
              >Inbox
              <select name="inbox">
                <option value="">All inboxes</option>
                ${inboxes.map((i) => html`<option value="${i.id}" ${q.inbox === i.id ? 'selected' : ''}>${i.label}</option>`)}
              </select></label
            >
            <label
              >Agent
              <select name="agent">
                <option value="">All agents</option>
                ${agents.choices.map(
                  (a) =>
                    html`<option value="${a.id}" ${q.agent === a.id ? 'selected' : ''}>${a.label}</option>`,
                )}
              </select></label
            >
            <label>Tool <input name="tool" value="${q.tool}" placeholder="any tool" /></label>
            <button type="submit">Show</button>
          </form>
          ${
            rows.length === 0
              ? html`<p class="muted">
                  No agent activity${q.inbox !== '' || q.agent !== '' || q.tool !== '' ? ' matches' : ' yet'}.
                </p>`
              : html`<table>
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">What happened</th>
                      <th scope="col">Inbox</th>
                      <th scope="col">By</th>
                      <th scope="col"><span class="visually-hidden">Undo</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    ${rows.map(
                      (r) =>
                        html`<tr data-tool="${r.entry.tool}">
                          <td>${when(r.entry.at)}</td>
                          <td>${words(r)}</td>
                          <td>
                            ${
                              r.entry.inboxId === null
                                ? ''
                                : html`<a href="/inboxes#${r.entry.inboxId}"
                                    >${inboxNames.get(r.entry.inboxId) ?? 'removed inbox'}</a
                                  >`
                            }
                          </td>
                          <td>${who(r.entry.credentialKind, r.entry.credentialId, r.entry.clientId)}</td>
                          <td>
                            ${r.undoable && r.entry.undoId !== null ? undoButton(csrf, r.entry.undoId) : ''}
                          </td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
          }
          <nav aria-label="Pages" class="pager">
            ${offset > 0 ? html`<a href="${link(Math.max(0, offset - PAGE_SIZE))}">Newer</a>` : ''}
            <span class="muted"
              >${total === 0 ? '' : `${String(offset + 1)}–${String(offset + rows.length)} of ${String(total)}`}</span
            >
            ${offset + rows.length < total ? html`<a href="${link(offset + PAGE_SIZE)}">Older</a>` : ''}
          </nav>`,
      }),
    );
  });

  app.post('/settings/activity/undo', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const { undoId } = await formFields(c, 'undoId');
    // The person, under the same rules as an agent: another agent's lease on the inbox refuses the undo.
    const person = personIn(account);
    const started = performance.now();
    const r = await deps.undo.undo(person, undoId);
    await recordPersonCall(deps, person, {
      tool: 'undo_action',
      inboxId: null,
      outcome: r.ok ? 'ok' : r.error.code,
      undoId: null,
      started,
    });
    return c.redirect(
      r.ok
        ? `/settings/activity?${new URLSearchParams({
            undone: String(r.value.restored.length),
            ...(r.value.labelsRemoved.length > 0 && { labels: String(r.value.labelsRemoved.length) }),
          }).toString()}`
        : `/settings/activity?error=${r.error.code}`,
      303,
    );
  });
}

const UNDO_ERRORS: Readonly<Record<string, string>> = {
  undo_unavailable: 'That change can no longer be undone: it was undone already, or it is older than 7 days.',
  lease_held:
    'An agent is tidying this inbox right now. Undo again when its pass has ended, or stop that agent now ' +
    '(disconnect it under Agents, or revoke its key under Advanced, or take away its powers to tidy and screen ' +
    'there): its pass ends with it.',
};
