import * as z from 'zod';
import type { ActionKind } from '../../core/actions/action-types.ts';
import { actResult, fromActError } from './action-results.ts';
import type { ACT_RESULT } from './output-shapes.ts';
import type { PayloadOf, ToolContext, ToolOutcome } from './tool-definition.ts';
import { toolError } from './tool-error.ts';
import { LABEL_ID, MESSAGE_IDS } from './tool-helpers.ts';

const labelIds = z.array(z.string().regex(LABEL_ID, 'a label id from list_labels')).min(1).max(20);
/** The arguments of apply_labels and remove_labels. */
export const LABEL_CHANGE = z.strictObject({
  inboxId: z.string(),
  messageIds: MESSAGE_IDS,
  labelIds,
  confirmed: z.literal(true).optional(),
});

/** apply_labels, remove_labels and star_messages share their limits: ≤ 25 ids, `confirmed: true` for more than one. */
export async function flagTool(
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
