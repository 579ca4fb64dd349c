import { CHANGES_MAIL } from '../../../core/auth/agent-powers.ts';
import * as z from 'zod';
import { AGENT_LABEL } from '../lease-results.ts';
import { payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOk } from '../tool-error.ts';
import { ownedInbox } from '../tool-helpers.ts';

export const endTriage = defineTool({
  name: 'end_triage',
  needs: CHANGES_MAIL,
  title: 'End a triage pass',
  description:
    'Releases your lease on the inbox and records the pass with an optional summary (what you did, in a sentence or two).',
  input: z.strictObject({
    inboxId: z.string(),
    agentLabel: AGENT_LABEL,
    summary: z.string().max(2000).optional(),
  }),
  output: z.union([
    payload({ ended: z.literal(true) }),
    payload({ ended: z.literal(false), reason: z.literal('not_held') }),
  ]),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ inboxId, agentLabel: label, summary }, ctx) {
    const inbox = await ownedInbox(ctx, inboxId);
    if (!inbox.ok) return inbox.error;
    const ended = await ctx.services.leases.end(ctx.principal, inbox.inbox, label, summary?.trim() || null);
    return toolOk(
      ended
        ? { ended: true }
        : {
            ended: false,
            reason: 'not_held',
            agentOnly: [
              'You held no live lease on this inbox with this agentLabel (it may have expired); nothing was recorded.',
            ],
          },
    );
  },
});
