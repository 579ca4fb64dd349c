import * as z from 'zod';
import { actResult, fromActError } from '../action-results.ts';
import { ACT_RESULT } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError } from '../tool-error.ts';
import { LABEL_ID } from '../tool-helpers.ts';

export const ACT_MAX_ITEMS = 100;

export const actOnMessages = defineTool({
  name: 'act_on_messages',
  needs: 'tidy',
  title: 'Act on messages',
  description:
    'Archive, trash, spam, star, unstar or label messages in any inbox. Give items (up to 100 { inboxId, messageId }) or sender ' +
    '({ inboxId, email }: every message from that sender still in the inbox). Trash and spam are moves, never deletes. VIP mail ' +
    'is skipped when more than one message is affected and reported in skipped; to act on one VIP message, ask the person about ' +
    'it and call with that single item and vipConfirmed: true. labelIds (from list_labels) are required for action "label". ' +
    'Every change returns an undoId for undo_action. Take the lease (begin_triage) before a pass over many messages.',
  input: z.strictObject({
    action: z.enum(['archive', 'trash', 'spam', 'star', 'unstar', 'label']),
    items: z
      .array(z.strictObject({ inboxId: z.string(), messageId: z.string() }))
      .min(1)
      .max(ACT_MAX_ITEMS)
      .optional(),
    sender: z.strictObject({ inboxId: z.string(), email: z.string().min(3).max(254) }).optional(),
    labelIds: z.array(z.string().regex(LABEL_ID, 'a label id from list_labels')).min(1).max(20).optional(),
    vipConfirmed: z.boolean().optional(),
  }),
  output: ACT_RESULT,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  calledByViews: true,
  async run(args, ctx) {
    if ((args.items === undefined) === (args.sender === undefined)) {
      return toolError('invalid_arguments', 'Give either items or sender, not both and not neither.');
    }
    if (args.action === 'label' && args.labelIds === undefined) {
      return toolError('invalid_arguments', 'action "label" needs labelIds (ids from list_labels).');
    }
    if (args.action !== 'label' && args.labelIds !== undefined) {
      return toolError('invalid_arguments', 'labelIds only go with action "label".');
    }
    if (args.vipConfirmed === true && (args.items?.length ?? 2) !== 1) {
      return toolError(
        'invalid_arguments',
        'vipConfirmed applies to one message at a time: give exactly one item.',
      );
    }
    const r = await ctx.services.actions.act({
      principal: ctx.principal,
      action: args.action,
      targets:
        args.sender === undefined
          ? { items: args.items ?? [] }
          : { sender: { inboxId: args.sender.inboxId, address: args.sender.email } },
      ...(args.labelIds !== undefined && { labels: args.labelIds }),
      confirmedForVip: args.vipConfirmed === true,
    });
    return r.ok ? actResult(args.action, r.value) : fromActError(r.error, ctx.marker);
  },
});
