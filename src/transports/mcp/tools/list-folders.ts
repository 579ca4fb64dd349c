import * as z from 'zod';
import { clamp, demoNote, usableInboxWithFolders } from '../tool-helpers.ts';
import { fitItems } from '../page-fit.ts';
import { CANONICAL_FOLDERS } from '../../../core/messages/folder.ts';
import { DEMO, payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOk } from '../tool-error.ts';

export const listFolders = defineTool({
  name: 'list_folders',
  needs: 'read',
  title: 'List folders',
  description:
    'Lists the mailboxes/labels of an inbox with their canonical id (inbox, sent, drafts, archive, spam, trash, all, screened) or ' +
    'provider path, and whether each is selected for sync. Use the names with sync_inbox { folders } and list_messages { folder }. ' +
    'A mailbox with many folders comes in pages: query filters by name or path (case-insensitive), limit is clamped to 1..500 ' +
    '(default 500); pass the previous nextOffset as offset for the next page.',
  input: z.strictObject({
    inboxId: z.string(),
    query: z.string().max(200).optional(),
    limit: z.number().optional(),
    offset: z.number().optional(),
  }),
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
    total: z.number(),
    nextOffset: z.number().nullable(),
    ...DEMO,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    const inbox = await usableInboxWithFolders(ctx, args.inboxId);
    if (!inbox.ok) return inbox.error;
    const needle = args.query?.trim().toLowerCase() ?? '';
    const matching = inbox.folders.filter(
      (f) => needle === '' || f.name.toLowerCase().includes(needle) || f.path.toLowerCase().includes(needle),
    );
    const offset = clamp(args.offset, 0, Number.MAX_SAFE_INTEGER, 0);
    const limit = clamp(args.limit, 1, 500, 500);
    const asked = matching.slice(offset, offset + limit).map((f) => ({
      id: f.id,
      name: f.name,
      canonical: f.canonical,
      path: f.path,
      selected: f.selected,
      syncedAt: f.sync.syncedAt?.toISOString() ?? null,
    }));
    // A person with thousands of folders: a page too long for one result ends early, and nextOffset goes on from
    // there (the result's size limit would otherwise cut the list with no way to the rest).
    const folders = fitItems(asked);
    const end = offset + folders.length;
    return toolOk({
      folders,
      total: matching.length,
      nextOffset: end < matching.length ? end : null,
      ...demoNote(inbox.inbox),
      ...(inbox.folders.length === 0 && { agentOnly: ['No folders are known yet: call sync_inbox first.'] }),
    });
  },
});
