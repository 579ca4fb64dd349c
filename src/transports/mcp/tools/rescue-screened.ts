import * as z from 'zod';
import { payload, SENDER_TEXT } from '../output-shapes.ts';
import { fromScreeningError } from '../screening-results.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOk } from '../tool-error.ts';

export const rescueScreened = defineTool({
  name: 'rescue_screened',
  needs: 'screen',
  title: 'Rescue a screened message',
  description:
    'Moves a message from Screened back to the inbox and adds its sender to the known-good senders (triage profile), so their ' +
    'mail is never screened again — in that inbox only (scope: this_inbox) when the person let this agent reach only some ' +
    'inboxes. id is a row id from review_screened, inboxId its inbox. Returns an undoId for the move.',
  input: z.strictObject({ inboxId: z.string(), id: z.string().max(64) }),
  output: payload({
    id: z.string(),
    sender: SENDER_TEXT,
    knownGood: z.boolean(),
    /** Where the sender is now known-good: every inbox, or only this one (an agent limited to some inboxes). */
    scope: z.enum(['every_inbox', 'this_inbox']),
    undoId: z.string().nullable(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  calledByViews: true,
  async run(args, ctx) {
    const r = await ctx.services.screening.rescue(ctx.principal, args.inboxId, args.id);
    if (!r.ok) return fromScreeningError(r.error, ctx.marker);
    return toolOk({
      id: args.id,
      sender: r.value.sender,
      knownGood: r.value.knownGood,
      scope: r.value.scope,
      undoId: r.value.undoId,
      sayToHuman: r.value.knownGood
        ? `I moved the message back to your inbox; mail from this sender will not be screened again${r.value.scope === 'this_inbox' ? ' in this inbox' : ''}.`
        : 'I moved the message back to your inbox. Its sender address is not an ordinary one, so I could not add it to your known-good senders.',
      ...(r.value.undoId !== null && {
        agentOnly: [`To move it back to Screened, call undo_action with undoId ${r.value.undoId}.`],
      }),
    });
  },
});
