import type { ActError, ActionKind, ActOutcome } from '../../core/actions/action-types.ts';
import type { ACT_RESULT } from './output-shapes.ts';
import type { PayloadOf, ToolFailure, ToolOutcome } from './tool-definition.ts';
import { agentMessage } from './next-steps.ts';
import { toolError, toolOk } from './tool-error.ts';
import type { Marker } from './untrusted-marks.ts';
import { fromInboxError } from './tool-helpers.ts';

const DONE: Readonly<Record<ActionKind, string>> = {
  archive: 'archived',
  trash: 'moved to Trash',
  spam: 'moved to Spam',
  star: 'starred',
  unstar: 'unstarred',
  label: 'labelled',
  unlabel: 'unlabelled',
  screen: 'moved to Screened',
  rescue: 'moved back to the inbox',
};

const count = (n: number, one: string) => `${String(n)} ${one}${n === 1 ? '' : 's'}`;

/**
 * The result of a mail change, for every action tool alike. `sayToHuman` holds counts only: subjects and sender
 * names are data from strangers and stay in the structured fields.
 */
export function actResult(action: ActionKind, o: ActOutcome): ToolOutcome<PayloadOf<typeof ACT_RESULT>> {
  const vip = o.skipped.filter((s) => s.reason === 'vip').length;
  const missing = o.skipped.filter((s) => s.reason === 'not_found').length;
  const parts = [`I ${DONE[action]} ${count(o.changed.length, 'message')}.`];
  if (vip > 0)
    parts.push(
      `${count(vip, 'message')} from VIPs ${vip === 1 ? 'was' : 'were'} left alone; they need your look one at a time.`,
    );
  if (missing > 0) parts.push(`${count(missing, 'message')} could not be found.`);
  if (o.undoId !== null) parts.push('This can be undone.');
  const agentOnly: string[] = [];
  if (o.undoId !== null)
    agentOnly.push(`To reverse this, call undo_action with undoId ${o.undoId} (valid 7 days, once).`);
  if (vip > 0)
    agentOnly.push(
      'Skipped VIP messages: show each to the person; act on one only after they confirm it, with vipConfirmed: true (act_on_messages) or confirmed: true (trash_message, mark_as_spam).',
    );
  if (o.more) {
    parts.push('There are more messages from this sender; I can continue.');
    agentOnly.push(
      'This sender-wide action stops at 500 messages and more remain: call act_on_messages again with the same sender to continue.',
    );
  }
  if (o.withoutLease)
    agentOnly.push(
      'You do not hold the triage lease on this inbox. Before a pass that changes many messages, call begin_triage.',
    );
  return toolOk({
    action,
    changed: o.changed,
    skipped: o.skipped,
    undoId: o.undoId,
    ...(o.more && { more: true }),
    sayToHuman: parts.join(' '),
    agentOnly,
  });
}

export function fromActError(e: ActError, marker: Marker): ToolFailure {
  switch (e.code) {
    case 'lease_held':
      return toolError('lease_held', e.message, {
        details: { holder: e.holder, expiresAt: e.expiresAt.toISOString() },
        sayToHuman: 'Another agent is tidying this inbox right now, so I will wait until it is done.',
      });
    case 'vip_confirmation_required':
      return toolError(
        'vip_confirmation_required',
        `${e.message} Show the person that message; only after they agree call again with confirmed: true (trash_message, mark_as_spam) or vipConfirmed: true and that one item (act_on_messages).`,
        {
          details: { from: marker.wrap(e.from) },
          sayToHuman: 'This message is from one of your VIPs. Do you want me to go ahead with it anyway?',
        },
      );
    case 'provider_error':
      return toolError('provider_error', e.message, partialDetails(e.partial, marker));
    case 'rate_limited':
      return toolError(
        'rate_limited',
        `${e.message} Use the labels list_labels lists, ${e.retryAfterSeconds === undefined ? `or make at most ${String(e.perDay)} new ones in a change` : 'or wait'}.`,
        {
          // Refused before anything changed, unless other inboxes of the same call were changed first.
          ...(e.partial !== undefined && e.partial.changed.length > 0 && partialDetails(e.partial, marker)),
          ...(e.retryAfterSeconds !== undefined && { retryAfterSeconds: e.retryAfterSeconds }),
          sayToHuman:
            e.retryAfterSeconds === undefined
              ? `That would make ${String(e.asked)} new labels, more than this inbox may gain in a day (${String(e.perDay)}); I can make fewer at a time, or use the labels it has.`
              : e.remaining > 0
                ? `That would make ${String(e.asked)} new labels, and this inbox may gain ${String(e.remaining)} more today (${String(e.perDay)} a day); I can make fewer, or use the labels it has.`
                : `This inbox has gained as many new labels today as the service allows (${String(e.perDay)}); I can use the labels it has, or make new ones tomorrow.`,
        },
      );
    case 'message_not_found':
      return toolError(e.code, agentMessage(e));
    default: {
      const code = e.code;
      return fromInboxError({ code, message: e.message, ...(e.next !== undefined && { next: e.next }) });
    }
  }
}

/** What a change did before it failed, still undoable with its handle, in an error's details. */
function partialDetails(
  partial: Extract<ActError, { code: 'provider_error' }>['partial'],
  marker: Marker,
): { details?: { changed: ActOutcome['changed']; undoId: string | null } } {
  if (partial === undefined) return {};
  // Subjects are the senders' words: marked here, as an error is not marked by the tool's schema.
  return {
    details: {
      changed: partial.changed.map((c) => ({ ...c, subject: marker.wrap(c.subject) })),
      undoId: partial.undoId,
    },
  };
}
