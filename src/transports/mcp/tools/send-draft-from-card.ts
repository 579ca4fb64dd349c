import * as z from 'zod';
import { draftView } from '../../../core/drafts/draft-view.ts';
import { DRAFT_VIEW, payload } from '../output-shapes.ts';
import { fromSendError } from '../send-results.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOk } from '../tool-error.ts';
import { ownedInbox } from '../tool-helpers.ts';
import { VIEWS } from '../views/views.ts';
import { CARD_INPUT, fromCardError } from './update-draft-from-card.ts';

export const sendDraftFromCard = defineTool({
  name: 'send_draft_from_card',
  title: 'Send from the draft card',
  description:
    'App only: the draft card (show_draft) sends after the person pressed Send — the in-app confirmation. It needs the ' +
    'single-use code the card received and exactly the To, Subject and text the card shows; it sends once. Agents never ' +
    'have a code and use send_draft after the person approves in chat.',
  input: z.strictObject(CARD_INPUT),
  output: payload({
    sent: z.literal(true),
    sentAt: z.string(),
    draft: DRAFT_VIEW.optional(),
    warnings: z.array(z.string()).optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  resourceUri: VIEWS.draft.uri,
  visibility: ['app'],
  async run({ nonce, to, subject, body }, ctx) {
    const r = await ctx.services.cards.send(ctx.principal, nonce, { to, subject, body });
    if (!r.ok) return 'card' in r.error ? fromCardError(r.error) : fromSendError(r.error);
    const inbox = await ownedInbox(ctx, r.value.draft.inboxId);
    return toolOk({
      sent: true,
      sentAt: r.value.sentAt.toISOString(),
      ...(inbox.ok && { draft: draftView(r.value.draft, inbox.inbox) }),
      ...(r.value.warnings.length > 0 && { warnings: r.value.warnings }),
      sayToHuman: 'Sent.',
    });
  },
});
