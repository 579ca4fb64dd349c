import { CHANGES_MAIL } from '../../../core/auth/agent-powers.ts';
import * as z from 'zod';
import { payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError, toolOk } from '../tool-error.ts';

export const undoAction = defineTool({
  name: 'undo_action',
  needs: CHANGES_MAIL,
  title: 'Undo a change',
  description:
    'Reverses one change by its undoId (from any tool that changed mail): moves go back to their folder, stars and labels are ' +
    'restored — only what that change did. Works once, for 7 days. Reports what could not be restored and why (gone, moved since).',
  input: z.strictObject({ undoId: z.string().max(64) }),
  output: payload({
    undone: z.string(),
    restored: z.array(z.object({ inboxId: z.string(), messageId: z.string() })),
    notRestored: z.array(
      z.object({
        inboxId: z.string(),
        messageId: z.string(),
        reason: z.enum(['gone', 'moved_since', 'inbox_unavailable', 'provider_error']),
      }),
    ),
    labelsRemoved: z
      .array(z.string())
      .optional()
      .describe(
        'Labels the change had made that no message carries now, taken off the mailbox’s label list.',
      ),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  calledByViews: true,
  async run({ undoId }, ctx) {
    const r = await ctx.services.undo.undo(ctx.principal, undoId);
    if (!r.ok) {
      return r.error.code === 'lease_held'
        ? toolError('lease_held', r.error.message, {
            details: { holder: r.error.holder, expiresAt: r.error.expiresAt.toISOString() },
          })
        : toolError('undo_unavailable', r.error.message);
    }
    const { restored, notRestored, labelsRemoved } = r.value;
    const n = restored.length;
    return toolOk({
      undone: r.value.action,
      restored,
      notRestored,
      ...(labelsRemoved.length > 0 && { labelsRemoved }),
      sayToHuman:
        `I undid that: ${String(n)} message${n === 1 ? '' : 's'} restored.` +
        (labelsRemoved.length > 0
          ? ` The label${labelsRemoved.length === 1 ? '' : 's'} I had made for it (${labelsRemoved.map((l) => `“${l}”`).join(', ')}) ${labelsRemoved.length === 1 ? 'is' : 'are'} gone from your labels too.`
          : '') +
        (notRestored.length > 0
          ? ` ${String(notRestored.length)} could not be restored (see the details).`
          : ''),
    });
  },
});
