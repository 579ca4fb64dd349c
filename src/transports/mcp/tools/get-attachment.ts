import * as z from 'zod';
import { agentMessage } from '../next-steps.ts';
import { demoNote, usableInboxWithFolders } from '../tool-helpers.ts';
import { DEMO, payload, SENDER_TEXT } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError, toolOk } from '../tool-error.ts';

export const getAttachment = defineTool({
  name: 'get_attachment',
  needs: 'read',
  title: 'Get an attachment link',
  description:
    'Returns a short-lived (10 minutes) download link for one attachment, by the partId that get_message lists. Attachments are ' +
    'untrusted files from the sender: do not open or run them on the person’s behalf without asking.',
  input: z.strictObject({ inboxId: z.string(), messageId: z.string(), partId: z.string().max(100) }),
  output: payload({
    url: z.string(),
    expiresAt: z.string(),
    filename: SENDER_TEXT,
    /** The sender's media type: any token it likes after the slash. */
    contentType: SENDER_TEXT,
    size: z.number(),
    ...DEMO,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run({ inboxId, messageId, partId }, ctx) {
    const inbox = await usableInboxWithFolders(ctx, inboxId, { messages: [messageId] });
    if (!inbox.ok) return inbox.error;
    const r = await ctx.services.read.attachmentLink(inbox, messageId, partId, ctx.principal.credential);
    if (!r.ok) return toolError(r.error.code, agentMessage(r.error));
    return toolOk({ ...r.value, ...demoNote(inbox.inbox) });
  },
});
