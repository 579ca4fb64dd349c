import { CHANGES_MAIL } from '../../../core/auth/agent-powers.ts';
import * as z from 'zod';
import { AGENT_LABEL, heldError, LEASE, leaseView } from '../lease-results.ts';
import { payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOk } from '../tool-error.ts';
import { usableInbox } from '../tool-helpers.ts';

export const beginTriage = defineTool({
  name: 'begin_triage',
  needs: CHANGES_MAIL,
  title: 'Begin a triage pass',
  description:
    'Takes the per-inbox lease before a pass that changes mail (one agent at a time; 5 minutes, extended by heartbeat_triage ' +
    'about every 2 minutes; end with end_triage). The same agentLabel from the same credential resumes its own lease. Outside the ' +
    'person’s cadence or in their quiet hours it answers started: false with the reason and nextDueAt — tell the person, and only ' +
    'if they explicitly ask to triage now, call again with force: true.',
  input: z.strictObject({ inboxId: z.string(), agentLabel: AGENT_LABEL, force: z.boolean().optional() }),
  output: z.union([
    payload({ started: z.literal(true), resumed: z.boolean(), lease: LEASE }),
    payload({
      started: z.literal(false),
      reason: z.enum(['too_soon', 'quiet_hours']),
      nextDueAt: z.string(),
    }),
  ]),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ inboxId, agentLabel: label, force }, ctx) {
    const inbox = await usableInbox(ctx, inboxId);
    if (!inbox.ok) return inbox.error;
    const r = await ctx.services.leases.begin(ctx.principal, inbox.inbox, label, force === true);
    if (r.kind === 'held') return heldError(r.lease);
    if (r.kind === 'not_started') {
      return toolOk({
        started: false,
        reason: r.reason,
        nextDueAt: r.nextDueAt.toISOString(),
        sayToHuman:
          r.reason === 'quiet_hours'
            ? `It is within your quiet hours, so I will not triage this inbox until ${r.nextDueAt.toISOString()} unless you ask me to now.`
            : `This inbox was triaged recently; the next pass is due at ${r.nextDueAt.toISOString()}. Say so if you want one now.`,
      });
    }
    return toolOk({
      started: true,
      resumed: r.resumed,
      lease: leaseView(r.lease),
      agentOnly: [
        'Call heartbeat_triage with the same agentLabel about every 2 minutes.',
        'Call end_triage with a short summary when the pass is done.',
      ],
    });
  },
});
