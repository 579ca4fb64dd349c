import type { SendError } from '../../core/sending/send-service.ts';
import { agentMessage } from './next-steps.ts';
import type { ToolFailure } from './tool-definition.ts';
import { toolError } from './tool-error.ts';
import { fromInboxError } from './tool-helpers.ts';

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
            : 'The email was not sent: the mail server refused it.',
      });
    default: {
      const code = e.code;
      return fromInboxError({ code, message: e.message, ...(e.next !== undefined && { next: e.next }) });
    }
  }
}
