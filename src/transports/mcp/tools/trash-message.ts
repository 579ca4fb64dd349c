import * as z from 'zod';
import { actResult, fromActError } from '../action-results.ts';
import { ACT_RESULT } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';

export const trashMessage = defineTool({
  name: 'trash_message',
  needs: 'tidy',
  title: 'Move a message to Trash',
  description:
    'Moves one message to Trash — never a permanent delete; the result has an undoId for undo_action. When the sender is a VIP ' +
    'the call is refused with vip_confirmation_required: show the person that message, and only after they agree in chat call ' +
    'again with confirmed: true. Never set confirmed on your own.',
  input: z.strictObject({ inboxId: z.string(), messageId: z.string(), confirmed: z.boolean().optional() }),
  output: ACT_RESULT,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  async run({ inboxId, messageId, confirmed }, ctx) {
    const r = await ctx.services.actions.act({
      principal: ctx.principal,
      action: 'trash',
      targets: { items: [{ inboxId, messageId }] },
      confirmedForVip: confirmed === true,
    });
    return r.ok ? actResult('trash', r.value) : fromActError(r.error, ctx.marker);
  },
});
