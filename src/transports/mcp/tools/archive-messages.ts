import * as z from 'zod';
import { actResult, fromActError } from '../action-results.ts';
import { ACT_RESULT } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError } from '../tool-error.ts';
import { MESSAGE_IDS, ownedInbox } from '../tool-helpers.ts';

export const archiveMessages = defineTool({
  name: 'archive_messages',
  needs: 'tidy',
  title: 'Archive messages (Gmail)',
  description:
    'Archives up to 25 messages of a google inbox (they leave the inbox and stay in All Mail). Always ask the person first and ' +
    'pass confirmed: true only after they agree. For other inboxes use act_on_messages with action "archive". VIP mail is ' +
    'skipped when more than one message is given. The result has an undoId.',
  input: z.strictObject({
    inboxId: z.string(),
    messageIds: MESSAGE_IDS,
    confirmed: z.literal(true),
  }),
  output: ACT_RESULT,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run({ inboxId, messageIds }, ctx) {
    const owned = await ownedInbox(ctx, inboxId);
    if (!owned.ok) return owned.error;
    if (owned.inbox.provider !== 'google') {
      return toolError(
        'not_supported',
        `archive_messages works on google inboxes; this one is ${owned.inbox.provider}. Use act_on_messages with action "archive" instead.`,
      );
    }
    const r = await ctx.services.actions.act({
      principal: ctx.principal,
      action: 'archive',
      targets: { items: messageIds.map((messageId) => ({ inboxId, messageId })) },
      confirmedForVip: false,
    });
    return r.ok ? actResult('archive', r.value) : fromActError(r.error, ctx.marker);
  },
});
