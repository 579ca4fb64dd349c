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
import { formBody } from './form.ts';

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
export async function powersFromForm(c: Context): Promise<Powers> {
  const body = await formBody(c, { all: true });
  if (body['choosing_powers'] === undefined) return EVERY_POWER;
  const raw = body['power'];
  const names = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return chosenPowers(names.filter((n): n is string => typeof n === 'string'));
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
