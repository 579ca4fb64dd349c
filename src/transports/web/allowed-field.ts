import { html } from 'hono/html';
import type { Context } from 'hono';
import {
  AGENT_POWERS,
  allows,
  chosenPowers,
  EVERY_POWER,
  POWER_WORDS,
  READING_WORDS,
  TO_THE_PERSON,
  type Powers,
} from '../../core/auth/agent-powers.ts';
import type { Allowed } from '../../core/auth/allowed.ts';
import { chosenReach, EVERY_INBOX, type InboxReach } from '../../core/auth/inbox-reach.ts';
import type { Inbox } from '../../core/inboxes/inbox.ts';
import { formBody } from './form.ts';

/** An inbox as the fields name it: its label and address. */
export type NamedInbox = Pick<Inbox, 'id' | 'label' | 'email'>;

/**
 * What an agent may do, as the person chooses it (decision 0141): on a new API key, on the consent page, and for a
 * key or a connected agent since. `idPrefix` keeps the boxes' ids apart where a page has several of these.
 */
export function powersFieldset(current: Powers, idPrefix: string, legend = 'What the agent may do') {
  return html`<fieldset class="powers">
    <legend>${legend}</legend>
    <input type="hidden" name="choosing_powers" value="1" />
    <p class="muted">Every agent may ${READING_WORDS}. Beyond that, it may:</p>
    ${AGENT_POWERS.map(
      (p) =>
        html`<label for="${idPrefix}-${p}"
          ><input
            id="${idPrefix}-${p}"
            type="checkbox"
            name="power"
            value="${p}"
            ${allows(current, p) ? 'checked' : ''}
          />
          ${capitalised(POWER_WORDS[p].what(TO_THE_PERSON))}</label
        >`,
    )}
  </fieldset>`;
}

/**
 * Which inboxes an agent may reach, as the person chooses it (decision 0142): every inbox, those added later too, or
 * only those ticked. Beside `powersFieldset` wherever it is; `inboxes` are the account's inboxes.
 */
export function inboxesFieldset(current: InboxReach, inboxes: readonly NamedInbox[], idPrefix: string) {
  const only = current !== null;
  return html`<fieldset class="powers" data-reach>
    <legend>Which inboxes it may reach</legend>
    <input type="hidden" name="choosing_inboxes" value="1" />
    <label for="${idPrefix}-every"
      ><input id="${idPrefix}-every" type="radio" name="inbox_reach" value="every" ${only ? '' : 'checked'} />
      Every inbox, and any you add later</label
    >
    ${
      // With no inbox to tick, "only" is still offered to a credential that has it, so saving never widens it.
      inboxes.length === 0 && !only
        ? ''
        : html`<label for="${idPrefix}-only"
              ><input
                id="${idPrefix}-only"
                type="radio"
                name="inbox_reach"
                value="only"
                ${only ? 'checked' : ''}
              />
              Only the inboxes ticked below</label
            >
            ${inboxes.map(
              (i) =>
                html`<label for="${idPrefix}-${i.id}" class="indent"
                  ><input
                    id="${idPrefix}-${i.id}"
                    type="checkbox"
                    name="inbox"
                    value="${i.id}"
                    ${only && current.has(i.id) ? 'checked' : ''}
                  />
                  ${i.label} (${i.email})</label
                >`,
            )}
            <p class="muted">
              An agent limited to some inboxes sees nothing of the others, and may not change what every inbox
              shares (VIPs, the triage defaults, the send switch, adding inboxes): what it changes of your
              preferences, and the senders it rescues or reports, are its inboxes' alone.
            </p>`
    }
  </fieldset>`;
}

/** Both fieldsets: what the agent may do, and where. */
export function allowedFieldsets(
  current: Allowed,
  inboxes: readonly NamedInbox[],
  idPrefix: string,
  legend?: string,
) {
  return html`${powersFieldset(current.powers, idPrefix, legend)}
  ${inboxesFieldset(current.inboxes, inboxes, idPrefix)}`;
}

/** Which inboxes, in a few words for a table: "every inbox", "no inbox", or their labels. */
export function reachInShort(reach: InboxReach, inboxes: readonly NamedInbox[]): string {
  if (reach === null) return 'every inbox';
  const named = inboxes.filter((i) => reach.has(i.id)).map((i) => i.label);
  return named.length === 0 ? 'no inbox' : `only ${named.join(', ')}`;
}

/** What an agent may do and where, in a few words for a table. */
export function allowedInShort(allowed: Allowed, inboxes: readonly NamedInbox[]): string {
  return `${powersInShort(allowed.powers)}; ${reachInShort(allowed.inboxes, inboxes)}`;
}

/** The powers in a few words, for a table: "everything", "reading only", or the powers held. */
export function powersInShort(powers: Powers): string {
  if (powers === null) return 'everything';
  const held = AGENT_POWERS.filter((p) => powers.has(p)).map((p) => POWER_WORDS[p].short);
  return held.length === 0 ? 'reading only' : `reading, ${held.join(', ')}`;
}

/**
 * The powers a submitted form chose. A form without the fieldset — a script posting only a name, as before there
 * was a choice — gives every power, as a credential made without a choice has.
 */
function powersOf(body: Record<string, unknown>): Powers {
  return body['choosing_powers'] === undefined ? EVERY_POWER : chosenPowers(values(body['power']));
}

/**
 * What a submitted form allowed: its powers and its inboxes. Without the inboxes' fieldset, or with "every inbox"
 * chosen, every inbox; otherwise those ticked that the account has, maybe none — its inboxes are read (`owned`) only
 * then.
 */
export async function allowedFromForm(
  c: Context,
  owned: () => Promise<readonly NamedInbox[]>,
): Promise<Allowed> {
  const body = await formBody(c, { all: true });
  const powers = powersOf(body);
  if (body['choosing_inboxes'] === undefined || !values(body['inbox_reach']).includes('only'))
    return { powers, inboxes: EVERY_INBOX };
  return { powers, inboxes: chosenReach(values(body['inbox']), await owned()) };
}

/** A form field's values, however many were sent; anything but text is dropped. */
function values(raw: unknown): string[] {
  const list: unknown[] = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return list.filter((n): n is string => typeof n === 'string');
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
