import * as z from 'zod';
import { agentMessage } from '../next-steps.ts';
import { clamp, demoNote, usableInboxWithFolders } from '../tool-helpers.ts';
import { fitItems } from '../page-fit.ts';
import { DEMO, MESSAGE_PREVIEW, payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError, toolOk } from '../tool-error.ts';

export const loadOlderMessages = defineTool({
  name: 'load_older_messages',
  needs: 'read',
  title: 'Load older messages',
  description:
    'Extends one selected folder past its synced window: loads up to count (clamped 1..200, default 50) older messages into the ' +
    'index so list_messages shows them. Not available for microsoft inboxes yet.',
  input: z.strictObject({ inboxId: z.string(), folder: z.string().max(300), count: z.number().optional() }),
  output: payload({
    /** Previews of what was loaded, as many as fit in one result (all of them are in the index either way). */
    loaded: z.array(MESSAGE_PREVIEW),
    loadedCount: z.number(),
    folder: z.string(),
    moreAvailable: z.boolean(),
    ...DEMO,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run({ inboxId, folder, count }, ctx) {
    const inbox = await usableInboxWithFolders(ctx, inboxId);
    if (!inbox.ok) return inbox.error;
    const r = await ctx.services.read.loadOlder(inbox, folder, clamp(count, 1, 200, 50));
    if (!r.ok) return toolError(r.error.code, agentMessage(r.error));
    const loaded = fitItems(r.value.loaded);
    return toolOk({
      ...r.value,
      loaded,
      loadedCount: r.value.loaded.length,
      ...demoNote(inbox.inbox),
      ...(loaded.length < r.value.loaded.length && {
        agentOnly: ['More were loaded than listed here: page through them with list_messages.'],
      }),
    });
  },
});
