import * as z from 'zod';
import { demoNote, usableInbox } from '../tool-helpers.ts';
import { DEMO, payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError, toolOk } from '../tool-error.ts';
import { agentMessage } from '../next-steps.ts';

export const listLabels = defineTool({
  name: 'list_labels',
  needs: 'read',
  title: 'List labels',
  description:
    'Labels of an inbox with their ids, for apply_labels/remove_labels and act_on_messages { action: "label" }: Gmail labels for ' +
    'google inboxes, Outlook categories for microsoft, IMAP keywords for icloud/imap (the ones present on synced mail).',
  input: z.strictObject({ inboxId: z.string() }),
  output: payload({ labels: z.array(z.object({ id: z.string(), name: z.string() })), ...DEMO }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ inboxId }, ctx) {
    const inbox = await usableInbox(ctx, inboxId);
    if (!inbox.ok) return inbox.error;
    const labels = await ctx.services.read.labels(inbox.inbox);
    if (!labels.ok) return toolError(labels.error.code, agentMessage(labels.error));
    return toolOk({
      labels: labels.value.map((name) => ({ id: name, name })),
      ...demoNote(inbox.inbox),
    });
  },
});
