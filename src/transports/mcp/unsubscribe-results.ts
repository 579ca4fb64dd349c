import type { NoOneClickReason, UnsubscribeFallback } from '../../core/unsubscribe/one-click-policy.ts';
import type { UnsubscribeError } from '../../core/unsubscribe/unsubscribe-service.ts';
import type { ToolFailure } from './tool-definition.ts';
import { toolError } from './tool-error.ts';
import { fromInboxError } from './tool-helpers.ts';
import type { Marker } from './untrusted-marks.ts';

/** Why no one-click request is offered, in words for the agent and the person (core gives only the code). */
const WHY: Readonly<Record<NoOneClickReason, string>> = {
  no_list_unsubscribe: 'This message has no List-Unsubscribe header.',
  duplicated_header:
    'This message carries its unsubscribe header more than once; a copy may have been added on the way, so it is not trusted.',
  mailto_only: 'This sender offers unsubscribing only by email, not by a one-click link.',
  not_https: 'The unsubscribe link is not https, so it is not used automatically.',
  several_https_links: 'The message names several unsubscribe links; one-click needs exactly one.',
  no_one_click_post:
    'The sender does not offer one-click unsubscribe (RFC 8058); its link is a web page to open.',
  unsigned: 'The unsubscribe header is not covered by a valid DKIM signature, so it may not be the sender’s.',
  signature_not_covering:
    'The sender’s DKIM signature does not cover both unsubscribe headers, so they are not trusted.',
  too_large:
    'This message is over 10 MB, too large to check the sender’s signature on its unsubscribe header.',
  sender_failed_dmarc:
    'The person’s mail provider found this message’s From forged (DMARC failed): an unsubscribe request or link would go to whoever forged it and tell them the address is read. It is not a list to leave but junk to screen.',
};

function fallbackSteps(f: UnsubscribeFallback, m: Marker): string[] {
  const steps: string[] = [];
  if (f.mailto !== null)
    steps.push(
      `To unsubscribe by email: create_draft to ${m.wrap(f.mailto.to)} with subject ${f.mailto.subject === null ? '"unsubscribe"' : m.wrap(f.mailto.subject)}` +
        `${f.mailto.body === null ? '' : ' and the body the sender asks for'}, then ask the person to approve sending it.`,
    );
  if (f.link !== null)
    steps.push(
      'The sender also names a web page for unsubscribing (details.fallback.link): the person can open it themselves; never fetch it.',
    );
  steps.push(
    'Or move this sender’s mail out of the inbox with act_on_messages { sender } (archive), after asking the person.',
  );
  return steps;
}

/** The fallback's strings are the sender's: marked. */
const markedFallback = (f: UnsubscribeFallback, m: Marker) => ({
  mailto:
    f.mailto === null
      ? null
      : {
          to: m.wrap(f.mailto.to),
          subject: f.mailto.subject === null ? null : m.wrap(f.mailto.subject),
          body: f.mailto.body === null ? null : m.wrap(f.mailto.body),
        },
  link: f.link === null ? null : m.wrap(f.link),
});

/** Core unsubscribe outcomes as tool errors: the words live here, the core speaks in codes and data. */
export function fromUnsubscribeError(e: UnsubscribeError, m: Marker): ToolFailure {
  switch (e.code) {
    case 'message_not_found':
      return toolError(
        e.code,
        'No message with this id in this inbox. Use the messageId review_unsubscribes or list_messages gave.',
      );
    case 'vip_confirmation_required':
      return toolError(
        e.code,
        'The sender is on the VIP list. Ask the person whether to unsubscribe from this sender, and call again with confirmed: true only after they agree.',
        {
          details: { from: m.wrap(e.sender) },
          sayToHuman: 'This sender is one of your VIPs. Do you really want to unsubscribe from them?',
        },
      );
    case 'unsubscribe_unavailable':
      if (e.reason === 'sender_failed_dmarc')
        return toolError(
          e.code,
          `${WHY[e.reason]} No unsubscribe request can be sent for it. Treat it as junk: a junk verdict in screen_junk, or mark_as_spam, after asking the person — not act_on_messages { sender }, which would move the real sender’s mail too.`,
          {
            details: { reason: e.reason, fallback: markedFallback(e.fallback, m) },
            sayToHuman:
              'Your mail provider says this message’s sender is forged, so I won’t unsubscribe: that would only tell the forger your address is read. I can move it to junk instead.',
          },
        );
      return toolError(
        e.code,
        [`${WHY[e.reason]} No unsubscribe request can be sent for it.`, ...fallbackSteps(e.fallback, m)].join(
          ' ',
        ),
        {
          details: { reason: e.reason, fallback: markedFallback(e.fallback, m) },
          sayToHuman: `${WHY[e.reason]} I can’t unsubscribe with one click here${e.fallback.mailto !== null ? ', but I can draft the unsubscribe email for you to send' : ''}.`,
        },
      );
    case 'human_approval_required':
      return toolError(
        e.code,
        e.inAppRequired
          ? 'The person requires confirming every unsubscribe in the app (triage profile sending.requireInAppConfirmation); approval in chat is not enough.'
          : 'Tell the person which sender this unsubscribes from, ask whether to go ahead, and only after a clear yes call again with humanApprovedInChat: true.',
      );
    case 'approval_invalid':
      return toolError(
        e.code,
        e.locked === true
          ? 'This approval is locked after too many wrong codes. Propose the unsubscribe again for a new one.'
          : e.attemptsLeft === undefined
            ? 'No pending unsubscribe with this id: use the pendingUnsubscribeId propose_unsubscribe returned.'
            : `The approvalCode does not match (${String(e.attemptsLeft)} attempts left). Use the code propose_unsubscribe returned; never guess.`,
        e.attemptsLeft === undefined ? {} : { details: { attemptsLeft: e.attemptsLeft } },
      );
    case 'approval_used':
      return toolError(
        e.code,
        `This approval was already used (${e.status}). Each approval makes one request.`,
        {
          details: { status: e.status },
        },
      );
    case 'approval_expired':
      return toolError(e.code, 'This approval expired (they last 24 hours). Propose the unsubscribe again.');
    case 'provider_error':
      return toolError(e.code, `The mailbox could not be read: ${e.detail}`);
    default:
      return fromInboxError(e);
  }
}
