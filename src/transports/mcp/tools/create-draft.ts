import * as z from 'zod';
import type { DraftError } from '../../../core/drafts/draft-service.ts';
import { draftView } from '../../../core/drafts/draft-view.ts';
import { agentMessage } from '../next-steps.ts';
import { DRAFT_VIEW, payload } from '../output-shapes.ts';
import type { ToolFailure } from '../tool-definition.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError, toolOk } from '../tool-error.ts';
import { fromInboxError, ownedInbox } from '../tool-helpers.ts';

export function fromDraftError(e: DraftError): ToolFailure {
  if (e.code === 'invalid_draft')
    return toolError('invalid_arguments', `The draft was refused: ${agentMessage(e)}`);
  if (e.code === 'provider_error') return toolError('provider_error', e.message);
  if (e.code === 'rate_limited')
    return toolError('rate_limited', e.message, {
      retryAfterSeconds: e.retryAfterSeconds,
      sayToHuman: `I have written as many drafts in this inbox today as the service allows (${String(e.perDay)}); I can write more tomorrow.`,
    });
  return fromInboxError(e);
}

export const createDraft = defineTool({
  name: 'create_draft',
  needs: 'draft',
  title: 'Write a draft',
  description:
    'Writes a draft into the inbox’s Drafts folder. It never sends. text is the email as the person would send it — no notes ' +
    'about tools or AI. threadId (from get_message) makes it a reply in that thread. When sending is available (sendAvailable) ' +
    'the result has pendingSendId and approvalCode for send_draft: show the person to, subject and text, and send only after ' +
    'they say yes. Never put the approvalCode in chat.',
  input: z.strictObject({
    inboxId: z.string(),
    to: z.string().min(1).max(4000),
    subject: z.string().max(900),
    text: z.string().max(200_000),
    threadId: z.string().max(200).optional(),
  }),
  output: z.union([
    payload({ draft: DRAFT_VIEW, sendAvailable: z.literal(false) }),
    payload({
      draft: DRAFT_VIEW,
      sendAvailable: z.literal(true),
      pendingSendId: z.string(),
      approvalCode: z.string(),
      approvalExpiresAt: z.string(),
    }),
  ]),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run({ inboxId, to, subject, text, threadId }, ctx) {
    const r = await ctx.services.drafts.create(ctx.principal, inboxId, {
      to,
      subject,
      text,
      threadId,
    });
    if (!r.ok) return fromDraftError(r.error);
    const inbox = await ownedInbox(ctx, r.value.inboxId);
    if (!inbox.ok) return inbox.error;
    const c = ctx.principal.credential;
    const offer = await ctx.services.sending.offer(r.value, inbox.inbox, {
      kind: c.kind,
      id: c.id,
      clientId: c.kind === 'access_token' ? c.clientId : null,
    });
    const draft = draftView(r.value, inbox.inbox);
    if (!offer.sendAvailable) {
      return toolOk({
        draft,
        sendAvailable: false,
        sayToHuman:
          offer.reason === 'send_disabled'
            ? 'I saved the draft in your Drafts folder. Sending from chat is turned off, so you can send it from your mail app — or tell me to turn sending on.'
            : 'I saved the draft in your Drafts folder; send it from your mail app when you are happy with it.',
      });
    }
    return toolOk({
      draft,
      sendAvailable: true,
      pendingSendId: offer.pendingSendId,
      approvalCode: offer.approvalCode,
      approvalExpiresAt: offer.expiresAt.toISOString(),
      agentOnly: [
        'Show the person the draft (to, subject, text) and ask whether to send it. Only after a clear yes, call send_draft with pendingSendId, approvalCode, humanApprovedInChat: true, confirmTo and confirmSubject.',
        'The approval covers this exact text and expires in 24 hours. Keep the approvalCode to yourself.',
      ],
    });
  },
});
