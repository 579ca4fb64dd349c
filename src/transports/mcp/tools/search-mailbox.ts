import * as z from 'zod';
import { agentMessage } from '../next-steps.ts';
import { clamp, demoNote, usableInboxWithFolders } from '../tool-helpers.ts';
import { DEMO, MESSAGE_PREVIEW, payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError, toolOk } from '../tool-error.ts';

export const searchMailbox = defineTool({
  name: 'search_mailbox',
  needs: 'read',
  title: 'Search the whole mailbox',
  description:
    'Searches the whole mailbox at the provider (subject, sender and body), not only the synced window. query: 1-200 characters. ' +
    'folder: one of the inbox’s selected folders; without it every folder except Spam and Trash is searched. limit is clamped to ' +
    '1..50 (default 20). Results are previews with messageIds usable with get_message.',
  input: z.strictObject({
    inboxId: z.string(),
    query: z.string().min(1).max(200),
    folder: z.string().max(300).optional(),
    limit: z.number().optional(),
  }),
  output: payload({ messages: z.array(MESSAGE_PREVIEW), searched: z.array(z.string()), ...DEMO }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run({ inboxId, query, folder, limit }, ctx) {
    if (query.trim() === '')
      return toolError('invalid_arguments', 'query must contain 1 to 200 characters besides spaces.');
    const inbox = await usableInboxWithFolders(ctx, inboxId);
    if (!inbox.ok) return inbox.error;
    const r = await ctx.services.read.search(inbox, query.trim(), folder, clamp(limit, 1, 50, 20));
    if (!r.ok) return toolError(r.error.code, agentMessage(r.error));
    return toolOk({ ...r.value, ...demoNote(inbox.inbox) });
  },
});
