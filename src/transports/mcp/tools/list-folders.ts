import * as z from 'zod';
import { demoNote, usableInboxWithFolders } from '../tool-helpers.ts';
import { CANONICAL_FOLDERS } from '../../../core/messages/folder.ts';
import { DEMO, payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOk } from '../tool-error.ts';

export const listFolders = defineTool({
  name: 'list_folders',
  title: 'List folders',
  description:
    'Lists the mailboxes/labels of an inbox with their canonical id (inbox, sent, drafts, archive, spam, trash, all, screened) or ' +
    'provider path, and whether each is selected for sync. Use the names with sync_inbox { folders } and list_messages { folder }.',
  input: z.strictObject({ inboxId: z.string() }),
  output: payload({
    folders: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        canonical: z.enum(CANONICAL_FOLDERS).nullable(),
        path: z.string(),
        selected: z.boolean(),
        syncedAt: z.string().nullable(),
      }),
    ),
    ...DEMO,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ inboxId }, ctx) {
    const inbox = await usableInboxWithFolders(ctx, inboxId);
    if (!inbox.ok) return inbox.error;
    const { folders } = inbox;
    return toolOk({
      folders: folders.map((f) => ({
        id: f.id,
        name: f.name,
        canonical: f.canonical,
        path: f.path,
        selected: f.selected,
        syncedAt: f.sync.syncedAt?.toISOString() ?? null,
      })),
      ...demoNote(inbox.inbox),
      ...(folders.length === 0 && { agentOnly: ['No folders are known yet: call sync_inbox first.'] }),
    });
  },
});
