import * as z from 'zod';
import { CARD_INPUT, fromCardError } from '../card-results.ts';
import { fromSendError, SENT, sentResult } from '../send-results.ts';
import { defineTool } from '../tool-definition.ts';
import { VIEWS } from '../views/views.ts';

export const sendDraftFromCard = defineTool({
  name: 'send_draft_from_card',
  needs: 'draft',
  title: 'Send from the draft card',
  description:
    'App only: the draft card (show_draft) sends after the person pressed Send — the in-app confirmation. It needs the ' +
    'single-use code the card received and exactly the To, Subject and text the card shows; it sends once. Agents never ' +
    'have a code and use send_draft after the person approves in chat.',
  input: z.strictObject(CARD_INPUT),
  output: SENT,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  resourceUri: VIEWS.draft.uri,
  visibility: ['app'],
  async run({ nonce, to, subject, body }, ctx) {
    const r = await ctx.services.cards.send(ctx.principal, nonce, { to, subject, body });
    if (!r.ok) return 'card' in r.error ? fromCardError(r.error) : fromSendError(r.error);
    return sentResult(r.value, ctx);
  },
});
