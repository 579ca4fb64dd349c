import * as z from 'zod';
import type { ActionKind } from '../../../core/actions/action-types.ts';
import { actResult, fromActError } from '../action-results.ts';
import { ACT_RESULT } from '../output-shapes.ts';
import { defineTool, type PayloadOf, type ToolContext, type ToolOutcome } from '../tool-definition.ts';
import { toolError } from '../tool-error.ts';
import { LABEL_ID } from '../tool-helpers.ts';

const ids = z.array(z.string()).min(1).max(25);
const labelIds = z.array(z.string().regex(LABEL_ID, 'a label id from list_labels')).min(1).max(20);
/** The arguments of apply_labels and remove_labels. */
const labelChange = z.strictObject({
  inboxId: z.string(),
  messageIds: ids,
  labelIds,
  confirmed: z.literal(true).optional(),
});

/** apply_labels, remove_labels and star_messages share their limits: ≤ 25 ids, `confirmed: true` for more than one. */
async function flagTool(
  ctx: ToolContext,
  action: ActionKind,
  a: { inboxId: string; messageIds: string[]; confirmed?: true | undefined; labels?: string[] },
): Promise<ToolOutcome<PayloadOf<typeof ACT_RESULT>>> {
  if (a.messageIds.length > 1 && a.confirmed !== true) {
    return toolError(
      'confirmation_required',
      `Changing ${String(a.messageIds.length)} messages at once needs the person's agreement: ask them, then call again with confirmed: true.`,
    );
  }
  const r = await ctx.services.actions.act({
    principal: ctx.principal,
    action,
    targets: { items: a.messageIds.map((messageId) => ({ inboxId: a.inboxId, messageId })) },
    ...(a.labels !== undefined && { labels: a.labels }),
    confirmedForVip: false,
  });
  return r.ok ? actResult(action, r.value) : fromActError(r.error, ctx.marker);
}

export const applyLabels = defineTool({
  name: 'apply_labels',
  title: 'Add labels',
  description:
    'Adds labels (ids from list_labels; IMAP keywords on icloud/imap) to up to 25 messages. With more than one message id, ask the ' +
    'person first and pass confirmed: true. Returns an undoId.',
  input: labelChange,
  output: ACT_RESULT,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  run: (a, ctx) => flagTool(ctx, 'label', { ...a, labels: a.labelIds }),
});

export const removeLabels = defineTool({
  name: 'remove_labels',
  title: 'Remove labels',
  description:
    'Removes labels from up to 25 messages. With more than one message id, ask the person first and pass confirmed: true. ' +
    'Returns an undoId.',
  input: labelChange,
  output: ACT_RESULT,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  run: (a, ctx) => flagTool(ctx, 'unlabel', { ...a, labels: a.labelIds }),
});

export const starMessages = defineTool({
  name: 'star_messages',
  title: 'Star or unstar messages',
  description:
    'starred: true stars, false unstars, up to 25 messages. With more than one message id, ask the person first and pass ' +
    'confirmed: true. Returns an undoId.',
  input: z.strictObject({
    inboxId: z.string(),
    messageIds: ids,
    starred: z.boolean(),
    confirmed: z.literal(true).optional(),
  }),
  output: ACT_RESULT,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  run: (a, ctx) => flagTool(ctx, a.starred ? 'star' : 'unstar', a),
});
