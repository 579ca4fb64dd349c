import { html } from 'hono/html';
import type { Context, Hono } from 'hono';
import type { Account } from '../../../core/accounts/account.ts';
import {
  ownTriage,
  type OwnPart,
  type OwnTriage,
  type ScreeningList,
  type TriageProfile,
} from '../../../core/profile/triage-profile.ts';
import { formFields } from '../form.ts';
import { csrfField, notice, page } from '../layout.ts';
import { requireSignIn, signedInAccount } from '../session.ts';
import type { WebDeps } from '../web-deps.ts';
import type { WebEnv } from '../web-env.ts';
import { wholeAccount } from '../../../core/auth/inbox-reach.ts';
import { parseInboxId } from '../../../core/inboxes/inbox.ts';

/** A field's message, shown next to it and tied to it for screen readers. */
type FieldErrors = Readonly<Record<string, string>>;

const SAVED: Readonly<Record<string, string>> = {
  sending: 'Saved: the send switch.',
  confirm: 'Saved: how you approve sends and unsubscribes.',
  vip: 'Saved: your VIP list.',
  triage: 'Saved: your triage settings.',
  screening: 'Saved: your screening lists.',
  'inbox-triage': 'Saved: that inbox follows your triage settings again.',
  'inbox-lists': 'Saved: that inbox follows your screening lists again.',
};

/** A one-button form that sets one value: a switch. */
const switchForm = (csrf: string, action: string, o: { name: string; value: string; label: string }) =>
  html`<form method="post" action="${action}">
    ${csrfField(csrf)}
    <input type="hidden" name="${o.name}" value="${o.value}" />
    <button type="submit">${o.label}</button>
  </form>`;

function fieldError(errors: FieldErrors, name: string) {
  const e = errors[name];
  return e === undefined ? '' : html`<span class="field-error" id="${name}-error" role="alert">${e}</span>`;
}
const described = (errors: FieldErrors, name: string) =>
  errors[name] === undefined ? '' : html`aria-invalid="true" aria-describedby="${name}-error"`;

/**
 * Settings → Sending, VIPs and triage: the send switch, the VIP list and the triage profile's main fields, for the
 * person. Each form is validated exactly as the tools validate (VipService.parse, ProfileService.update); a refusal
 * re-renders the page with the message next to the field and changes nothing.
 */
export function registerPreferencesPage(app: Hono<WebEnv>, deps: WebDeps): void {
  const render = async (
    c: Context<WebEnv>,
    account: Account,
    o: { errors?: FieldErrors; values?: Record<string, string>; status?: 200 | 400 } = {},
  ) => {
    const inboxes = await deps.inboxes.all(wholeAccount(account.id));
    const [sendEnabled, vips, profile] = await Promise.all([
      deps.sending.isEnabled(account.id),
      deps.vips.everyoneWithReach(
        account.id,
        inboxes.map((i) => i.id),
      ),
      deps.profiles.get(account.id),
    ]);
    // Where a VIP counts, when not everywhere: an agent may have set one for some inboxes only (decision 0102).
    const labels = new Map<string, string>(inboxes.map((i) => [i.id, i.label]));
    const reach = (ids: readonly string[]) =>
      ids.length === inboxes.length
        ? ''
        : ids.length === 0
          ? ' (no inbox: every inbox has its own VIPs)'
          : ` (only for ${ids.map((id) => labels.get(id) ?? 'an inbox').join(', ')})`;
    const errors = o.errors ?? {};
    const v = { ...currentValues(profile), ...o.values };
    // An agent may have turned it on for one inbox only; the person's switch sets it for all.
    const own = Object.values(profile.inboxes).map((x) => x.sending?.requireInAppConfirmation);
    const inApp = profile.defaults.sending.requireInAppConfirmation
      ? own.includes(false)
        ? 'some'
        : 'all'
      : own.includes(true)
        ? 'some'
        : 'off';
    const csrf = c.get('csrf');
    const saved = c.req.query('saved');
    return c.html(
      page({
        title: 'Sending, VIPs and triage',
        account,
        csrf,
        body: html`<h1>Sending, VIPs and triage</h1>
          ${notice('ok', saved === undefined ? undefined : SAVED[saved])}
          ${Object.keys(errors).length > 0 ? notice('error', 'Nothing was changed: see the message next to the field.') : ''}
          <h2>Sending</h2>
          <p>
            Sending is <strong>${sendEnabled ? 'on' : 'off'}</strong>.
            ${
              sendEnabled
                ? 'Agents can send a draft after you approve that exact draft.'
                : 'Agents can write drafts but not send them.'
            }
          </p>
          ${switchForm(csrf, '/settings/preferences/sending', {
            name: 'enabled',
            value: sendEnabled ? 'off' : 'on',
            label: sendEnabled ? 'Turn sending off' : 'Turn sending on',
          })}
          <p>
            Confirming in the app is <strong>${inApp === 'off' ? 'off' : 'on'}</strong>${
              inApp === 'some' ? ' for some of your inboxes' : ''
            }.
            ${
              inApp === 'off'
                ? 'You can approve a send or an unsubscribe by telling the agent in chat.'
                : 'A send or an unsubscribe waits until you press Send or Confirm yourself — on the draft card, in the app, or under Waiting for you; approval in chat is not enough, and an agent cannot turn this off.'
            }
          </p>
          ${switchForm(csrf, '/settings/preferences/confirm-in-app', {
            name: 'required',
            value: inApp === 'all' ? 'off' : 'on',
            label: inApp === 'all' ? 'Allow approval in chat' : 'Require confirming in the app',
          })}

          <h2>VIPs</h2>
          <p>Mail from these addresses and domains always gets your look: agents never move it in bulk.</p>
          ${
            vips.length === 0
              ? html`<p class="muted">No VIPs yet.</p>`
              : html`<ul class="vips">
                  ${vips.map(
                    ({ entry: x, inboxIds }) =>
                      html`<li>
                        ${x.value}<span class="muted">${reach(inboxIds)}</span>
                        <form method="post" action="/settings/preferences/vip" style="display:inline">
                          ${csrfField(csrf)}
                          <input type="hidden" name="remove" value="${x.value}" />
                          <button class="secondary" type="submit" aria-label="Remove ${x.value}">
                            Remove
                          </button>
                        </form>
                      </li>`,
                  )}
                </ul>`
          }
          <form method="post" action="/settings/preferences/vip">
            ${csrfField(csrf)}
            <label for="vip">Add an address or a domain</label>
            <input id="vip" name="vip" value="${v['vip'] ?? ''}" ${described(errors, 'vip')} />
            ${fieldError(errors, 'vip')}
            <button type="submit">Add VIP</button>
          </form>

          <h2>Triage</h2>
          <form method="post" action="/settings/preferences/triage">
            ${csrfField(csrf)}
            <label for="everyHours">Hours between triage passes (empty: no limit)</label>
            <input
              id="everyHours"
              name="everyHours"
              inputmode="decimal"
              value="${v['everyHours'] ?? ''}"
              ${described(errors, 'everyHours')}
            />
            ${fieldError(errors, 'everyHours')}
            <fieldset>
              <legend>Quiet hours (empty: none)</legend>
              <label for="quietStart">From (HH:MM)</label>
              <input
                id="quietStart"
                name="quietStart"
                value="${v['quietStart'] ?? ''}"
                ${described(errors, 'quietStart')}
              />
              ${fieldError(errors, 'quietStart')}
              <label for="quietEnd">To (HH:MM)</label>
              <input
                id="quietEnd"
                name="quietEnd"
                value="${v['quietEnd'] ?? ''}"
                ${described(errors, 'quietEnd')}
              />
              ${fieldError(errors, 'quietEnd')}
              <label for="timezone">Time zone</label>
              <input
                id="timezone"
                name="timezone"
                placeholder="Europe/Berlin"
                value="${v['timezone'] ?? ''}"
                ${described(errors, 'timezone')}
              />
              ${fieldError(errors, 'timezone')}
            </fieldset>
            <label
              ><input
                type="checkbox"
                name="screening"
                value="on"
                ${v['screening'] === 'on' ? 'checked' : ''}
              />
              Screen junk from senders who are neither VIPs nor known good</label
            >
            <label for="notes"
              >Guidance for screening junk (agents read it; an agent may have saved it for you)</label
            >
            <textarea id="notes" name="notes" rows="3" maxlength="2000" ${described(errors, 'notes')}>
${v['notes'] ?? ''}</textarea>
            ${fieldError(errors, 'notes')}
            <button type="submit">Save triage settings</button>
          </form>
          ${Object.entries(profile.inboxes).flatMap(([id, o]) => {
            const own = ownTriage(o);
            const label = labels.get(id) ?? 'An inbox you removed';
            return own === undefined
              ? []
              : [
                  html`<h4>${label} keeps its own triage settings</h4>
                    <p class="muted">
                      An agent may have set them. For this inbox they take the place of those above.
                    </p>
                    <ul class="own-triage">
                      ${ownTriageLines(own).map((line) => html`<li>${line}</li>`)}
                    </ul>
                    ${useDefaultsForm(csrf, id, 'triage', `Use the settings above for ${label}`)}`,
                ];
          })}
          <h3>Screening lists</h3>
          <p class="muted">
            Your rescues and reports add to them, and so can agents. Screening never hands out mail from
            known-good senders, and mail from blocked senders and domains is moved to Screened. Removing an
            entry takes it off that list everywhere, an inbox's own list too.
          </p>
          ${fieldError(errors, 'screening')} ${screeningLists(csrf, 'all', profile.defaults.junk)}
          ${Object.entries(profile.inboxes).map(([id, o]) =>
            o.junk === undefined || SCREENING_LISTS.every(([list]) => o.junk?.[list] === undefined)
              ? ''
              : html`<h4>${labels.get(id) ?? 'An inbox you removed'} keeps its own</h4>
                  <p class="muted">For this inbox, these take the place of the lists above.</p>
                  ${screeningLists(csrf, id, o.junk)}
                  ${useDefaultsForm(csrf, id, 'lists', `Use the lists above for ${labels.get(id) ?? 'this inbox'}`)}`,
          )}`,
      }),
      o.status ?? 200,
    );
  };

  app.get('/settings/preferences', requireSignIn, (c) => render(c, signedInAccount(c)));

  app.post('/settings/preferences/sending', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const { enabled } = await formFields(c, 'enabled');
    if (enabled !== 'on' && enabled !== 'off') return render(c, account, { status: 400, errors: {} });
    await deps.sending.setEnabled(account.id, enabled === 'on');
    return c.redirect('/settings/preferences?saved=sending', 303);
  });

  app.post('/settings/preferences/confirm-in-app', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const { required } = await formFields(c, 'required');
    if (required !== 'on' && required !== 'off') return render(c, account, { status: 400, errors: {} });
    await deps.profiles.setInAppConfirmation(account.id, required === 'on');
    return c.redirect('/settings/preferences?saved=confirm', 303);
  });

  app.post('/settings/preferences/vip', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const { vip, remove } = await formFields(c, 'vip', 'remove');
    const raw = (remove !== '' ? remove : vip).trim();
    const input = raw.includes('@') ? { emails: [raw] } : { domains: [raw] };
    const parsed = deps.vips.parse(input);
    if (raw === '' || parsed.invalid.length > 0 || parsed.entries.length === 0)
      return render(c, account, {
        status: 400,
        values: { vip },
        errors: { vip: 'Enter an email address (name@example.com) or a bare domain (example.com).' },
      });
    if (remove !== '') await deps.vips.remove(account.id, parsed.entries);
    else {
      const added = await deps.vips.add(account.id, parsed.entries);
      if (!added.ok)
        return render(c, account, { status: 400, values: { vip }, errors: { vip: added.error.message } });
    }
    return c.redirect('/settings/preferences?saved=vip', 303);
  });

  app.post('/settings/preferences/inbox-defaults', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const { inbox, part } = await formFields(c, 'inbox', 'part');
    // Idempotent: a second press (or one for an inbox that follows the defaults already) changes nothing.
    if (parseInboxId(inbox) === undefined || (part !== 'triage' && part !== 'lists'))
      return render(c, account, { status: 400, errors: {} });
    await deps.profiles.useDefaults(account.id, inbox, part);
    return c.redirect(`/settings/preferences?saved=inbox-${part}`, 303);
  });

  app.post('/settings/preferences/screening', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const { list, entry } = await formFields(c, 'list', 'entry');
    const named = SCREENING_LISTS.find(([l]) => l === list);
    if (named === undefined) return render(c, account, { status: 400, errors: {} });
    const [which, title] = named;
    if (!(await deps.profiles.removeScreeningEntry(account.id, which, entry)))
      return render(c, account, {
        status: 400,
        errors: { screening: `${entry.trim() || 'That'} is not on ${title.toLowerCase()}.` },
      });
    return c.redirect('/settings/preferences?saved=screening', 303);
  });

  app.post('/settings/preferences/triage', requireSignIn, async (c) => {
    const account = signedInAccount(c);
    const f = await formFields(c, 'everyHours', 'quietStart', 'quietEnd', 'timezone', 'screening', 'notes');
    const errors: Record<string, string> = {};
    const hours = f.everyHours.trim();
    const everyHours = hours === '' ? null : Number(hours);
    if (everyHours !== null && !Number.isFinite(everyHours))
      errors['everyHours'] = 'Enter a number of hours.';
    const quiet = [f.quietStart, f.quietEnd, f.timezone].map((s) => s.trim());
    const anyQuiet = quiet.some((s) => s !== '');
    const QUIET = ['quietStart', 'quietEnd', 'timezone'] as const;
    if (anyQuiet)
      QUIET.forEach((name, i) => {
        if (quiet[i] === '') errors[name] = 'Fill in all three, or none.';
      });
    if (Object.keys(errors).length === 0) {
      // The same validation as update_triage_profile: the profile's own schema decides.
      const r = await deps.profiles.update(
        wholeAccount(account.id),
        {
          defaults: {
            cadence: { everyHours },
            quietHours: anyQuiet ? { start: quiet[0], end: quiet[1], timezone: quiet[2] } : null,
            junk: {
              screenUnknownSenders: f.screening === 'on',
              notes: f.notes.replace(/\r\n?/g, '\n').trim(),
            },
          },
        },
        'person',
      );
      if (r.ok) return c.redirect('/settings/preferences?saved=triage', 303);
      for (const issue of r.error.code === 'invalid_arguments' ? r.error.issues : []) {
        const field = FIELD_OF[issue.path] ?? 'everyHours';
        errors[field] ??= sentence(issue.message);
      }
    }
    return render(c, account, { status: 400, errors, values: f });
  });
}

/** How many of a screening list the page shows, each with its Remove button; the rest are counted. */
const LIST_SHOWN = 50;

const SCREENING_LISTS: readonly (readonly [ScreeningList, string])[] = [
  ['knownGoodSenders', 'Known-good senders'],
  ['blockedSenders', 'Blocked senders'],
  ['blockedDomains', 'Blocked domains'],
];

/** The screening lists one scope holds (`all`: the defaults; else an inbox id), each entry removable. */
function screeningLists(
  csrf: string,
  scope: string,
  junk: { readonly [L in ScreeningList]?: readonly string[] | undefined },
) {
  return SCREENING_LISTS.map(([list, title]) => {
    const entries = junk[list];
    return entries === undefined ? '' : screeningList(csrf, `${scope}-${list}`, list, title, entries);
  });
}

function screeningList(
  csrf: string,
  id: string,
  list: ScreeningList,
  title: string,
  entries: readonly string[],
) {
  const more = entries.length - LIST_SHOWN;
  const removeForm = (entry: string, label: string) =>
    html`<form method="post" action="/settings/preferences/screening" style="display:inline">
      ${csrfField(csrf)}
      <input type="hidden" name="list" value="${list}" />
      <input type="hidden" name="entry" value="${entry}" />
      <button class="secondary" type="submit" aria-label="${label}">Remove</button>
    </form>`;
  return html`<p>
      <strong>${title}</strong> (${String(entries.length)})${
        entries.length === 0 ? html`: <span class="muted">none</span>` : ''
      }
    </p>
    ${
      entries.length === 0
        ? ''
        : html`<ul class="screening">
            ${entries
              .slice(0, LIST_SHOWN)
              .map((e) => html`<li>${e} ${removeForm(e, `Remove ${e} from ${title.toLowerCase()}`)}</li>`)}
          </ul>`
    }
    ${
      more > 0
        ? html`<form method="post" action="/settings/preferences/screening">
            ${csrfField(csrf)}
            <input type="hidden" name="list" value="${list}" />
            <label for="${id}">And ${String(more)} more: remove one by name</label>
            <input id="${id}" name="entry" />
            <button class="secondary" type="submit">Remove</button>
          </form>`
        : ''
    }`;
}

/** One press that lets an inbox follow the defaults again in its triage settings or its screening lists. */
const useDefaultsForm = (csrf: string, inboxId: string, part: OwnPart, label: string) =>
  html`<form method="post" action="/settings/preferences/inbox-defaults">
    ${csrfField(csrf)}
    <input type="hidden" name="inbox" value="${inboxId}" />
    <input type="hidden" name="part" value="${part}" />
    <button class="secondary" type="submit">${label}</button>
  </form>`;

/** An inbox's own triage settings in the Triage form's words. */
function ownTriageLines(own: OwnTriage): string[] {
  const lines: string[] = [];
  if (own.everyHours !== undefined)
    lines.push(
      `Hours between triage passes: ${own.everyHours === null ? 'no limit' : String(own.everyHours)}`,
    );
  if (own.quietHours !== undefined) {
    const q = own.quietHours;
    lines.push(`Quiet hours: ${q === null ? 'none' : `${q.start} to ${q.end} (${q.timezone})`}`);
  }
  if (own.screenUnknownSenders !== undefined)
    lines.push(
      `Screen junk from senders who are neither VIPs nor known good: ${own.screenUnknownSenders ? 'on' : 'off'}`,
    );
  if (own.notes !== undefined)
    lines.push(`Guidance for screening junk: ${own.notes === '' ? 'none' : own.notes}`);
  return lines;
}

/** Profile paths, as the schema reports them, to the form's fields. */
const FIELD_OF: Readonly<Record<string, string>> = {
  'defaults.cadence.everyHours': 'everyHours',
  'defaults.quietHours.start': 'quietStart',
  'defaults.quietHours.end': 'quietEnd',
  'defaults.quietHours.timezone': 'timezone',
  'defaults.junk.notes': 'notes',
};

const sentence = (m: string) => `${m.charAt(0).toUpperCase()}${m.slice(1)}.`;

function currentValues(p: TriageProfile): Record<string, string> {
  const d = p.defaults;
  return {
    everyHours: d.cadence.everyHours === null ? '' : String(d.cadence.everyHours),
    quietStart: d.quietHours?.start ?? '',
    quietEnd: d.quietHours?.end ?? '',
    timezone: d.quietHours?.timezone ?? '',
    screening: d.junk.screenUnknownSenders ? 'on' : '',
    notes: d.junk.notes,
  };
}
