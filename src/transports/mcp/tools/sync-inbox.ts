import * as z from 'zod';
import { agentMessage } from '../next-steps.ts';
import { demoNote, usableInbox } from '../tool-helpers.ts';
import { DEMO, payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError, toolOk } from '../tool-error.ts';

export const syncInbox = defineTool({
  name: 'sync_inbox',
  needs: 'read',
  title: 'Sync an inbox',
  description:
    'Pulls the newest mail of the inbox’s selected folders into the index that list_messages reads. folders (names, canonical ids ' +
    'such as "inbox" or "archive", or ids from list_folders) replaces and persists the selected folders. Reads only; changes nothing in the mailbox.',
  input: z.strictObject({
    inboxId: z.string(),
    folders: z.array(z.string().max(300)).min(1).max(20).optional(),
  }),
  output: payload({
    folders: z.array(
      z.object({
        folderId: z.string(),
        name: z.string(),
        added: z.number(),
        flagsChanged: z.number(),
        removed: z.number(),
        reset: z.boolean(),
      }),
    ),
    ...DEMO,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run({ inboxId, folders }, ctx) {
    const inbox = await usableInbox(ctx, inboxId);
    if (!inbox.ok) return inbox.error;
    const r = await ctx.services.sync.sync(inbox.inbox, folders === undefined ? {} : { folders });
    if (!r.ok) {
      if (r.code === 'unknown_folder')
        return toolError(
          'invalid_arguments',
          agentMessage({ message: r.message, next: 'pick_listed_folder' }),
        );
      return toolError(
        r.code,
        r.message,
        r.code === 'needs_reconnect'
          ? { sayToHuman: 'The mailbox refused the saved password; please reconnect it.' }
          : {},
      );
    }
    const added = r.folders.reduce((n, f) => n + f.added, 0);
    return toolOk({
      folders: r.folders,
      ...demoNote(inbox.inbox),
      sayToHuman: `Synced ${r.folders.map((f) => f.name).join(', ')}: ${String(added)} new message${added === 1 ? '' : 's'}.`,
    });
  },
});
