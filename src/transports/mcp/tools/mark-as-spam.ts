import * as z from 'zod';
import { actResult, fromActError } from '../action-results.ts';
import { ACT_RESULT } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';

export const markAsSpam = defineTool({
  name: 'mark_as_spam',
  needs: 'tidy',
  title: 'Move a message to Spam',
  description:
    'Moves one message to the Spam (Junk) folder; the result has an undoId for undo_action. A VIP sender is refused with ' +
    'vip_confirmation_required: ask the person about that message, and only after they agree call again with confirmed: true.',
  input: z.strictObject({ inboxId: z.string(), messageId: z.string(), confirmed: z.boolean().optional() }),
  output: ACT_RESULT,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  async run({ inboxId, messageId, confirmed }, ctx) {
    const r = await ctx.services.actions.act({
      principal: ctx.principal,
      action: 'spam',
      targets: { items: [{ inboxId, messageId }] },
      confirmedForVip: confirmed === true,
    });
    return r.ok ? actResult('spam', r.value) : fromActError(r.error, ctx.marker);
  },
});
