import * as z from 'zod';
import { flagTool } from '../flag-tools.ts';
import { ACT_RESULT } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { MESSAGE_IDS } from '../tool-helpers.ts';

export const starMessages = defineTool({
  name: 'star_messages',
  needs: 'tidy',
  title: 'Star or unstar messages',
  description:
    'starred: true stars, false unstars, up to 25 messages. With more than one message id, ask the person first and pass ' +
    'confirmed: true. Returns an undoId.',
  input: z.strictObject({
    inboxId: z.string(),
    messageIds: MESSAGE_IDS,
    starred: z.boolean(),
    confirmed: z.literal(true).optional(),
  }),
  output: ACT_RESULT,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  run: (a, ctx) => flagTool(ctx, a.starred ? 'star' : 'unstar', a),
});
