import * as z from 'zod';
import { draftView } from '../../core/drafts/draft-view.ts';
import type { SendError, SendOutcome } from '../../core/sending/send-service.ts';
import { agentMessage } from './next-steps.ts';
import { DRAFT_VIEW, payload } from './output-shapes.ts';
import type { ToolContext, ToolFailure } from './tool-definition.ts';
import { toolError, toolOk } from './tool-error.ts';
import { fromInboxError, ownedInbox } from './tool-helpers.ts';

/** What a send answers, from chat (send_draft) or from the card (send_draft_from_card). */
export const SENT = payload({
  sent: z.literal(true),
  sentAt: z.string(),
  draft: DRAFT_VIEW.optional(),
  warnings: z.array(z.string()).optional(),
  /** Addresses the mail server refused while it took the message for the others: it did not go to them. */
  refusedRecipients: z.array(z.string()).optional(),
});

export async function sentResult(sent: SendOutcome, ctx: ToolContext) {
  const inbox = await ownedInbox(ctx, sent.draft.inboxId);
  return toolOk({
    sent: true,
    sentAt: sent.sentAt.toISOString(),
    ...(inbox.ok && { draft: draftView(sent.draft, inbox.inbox) }),
    ...(sent.warnings.length > 0 && { warnings: sent.warnings }),
    ...(sent.refusedRecipients.length > 0 && { refusedRecipients: sent.refusedRecipients }),
    sayToHuman: sentWords(sent.refusedRecipients, sent.warnings),
  });
}

/**
 * What the person is told of a send: all of it, or which addresses it did not reach and why — and what became of
 * its filing when that went wrong (no copy in Sent because the mailbox is full, a draft left behind): theirs to know,
 * not only the agent's.
 */
function sentWords(refused: readonly string[], warnings: readonly string[]): string {
  const one = refused.length === 1;
  const sent =
    refused.length === 0
      ? 'Sent.'
      : `Sent, but not to ${refused.join(', ')}: your mail server refused ${one ? 'that address' : 'those addresses'}, so ${one ? 'it' : 'they'} will not get it. Check ${one ? 'it' : 'them'} before sending again.`;
  // Each warning says "The message was sent, but …" itself.
  return (refused.length === 0 && warnings.length > 0 ? warnings : [sent, ...warnings]).join(' ');
}

/** A refused or failed send as a tool error: the same words for send_draft and the draft card. */
export function fromSendError(e: SendError): ToolFailure {
  switch (e.code) {
    case 'send_disabled':
      return toolError(e.code, agentMessage(e), {
        sayToHuman: 'Sending from chat is turned off. Tell me if you want it on.',
      });
    case 'human_approval_required':
      return toolError(e.code, agentMessage(e));
    case 'approval_invalid':
      return toolError(
        e.code,
        agentMessage(e),
        e.attemptsLeft === undefined ? {} : { details: { attemptsLeft: e.attemptsLeft } },
      );
    case 'approval_used':
      return toolError(e.code, e.message, {
        details: { status: e.status },
        ...(e.status !== 'sent' && {
          sayToHuman:
            'I cannot tell for sure whether that email went out. Please check your Sent folder before sending it again.',
        }),
      });
    case 'approval_expired':
    case 'confirm_mismatch':
      return toolError(e.code, e.message);
    case 'provider_error':
      return toolError('provider_error', e.message, {
        details: { status: e.status },
        sayToHuman:
          e.status === 'unknown'
            ? 'The connection broke off while sending, so I cannot tell whether the email went out. Please check your Sent folder; I will not send it again on my own.'
            : `The email was not sent: ${e.reason}. Nothing went out.`,
      });
    default: {
      const code = e.code;
      return fromInboxError({ code, message: e.message, ...(e.next !== undefined && { next: e.next }) });
    }
  }
}
