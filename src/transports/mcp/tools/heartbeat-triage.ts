import { CHANGES_MAIL } from '../../../core/auth/agent-powers.ts';
import * as z from 'zod';
import { AGENT_LABEL, heldError, LEASE, leaseView } from '../lease-results.ts';
import { payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError, toolOk } from '../tool-error.ts';
import { usableInbox } from '../tool-helpers.ts';

export const heartbeatTriage = defineTool({
  name: 'heartbeat_triage',
  needs: CHANGES_MAIL,
  title: 'Extend the triage lease',
  description:
    'Extends your lease on the inbox by 5 minutes; call about every 2 minutes during a pass, with the agentLabel of begin_triage.',
  input: z.strictObject({ inboxId: z.string(), agentLabel: AGENT_LABEL }),
  output: payload({ lease: LEASE }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ inboxId, agentLabel: label }, ctx) {
    const inbox = await usableInbox(ctx, inboxId);
    if (!inbox.ok) return inbox.error;
    const r = await ctx.services.leases.heartbeat(ctx.principal, inbox.inbox, label);
    if (!r.ok)
      return r.lease === undefined
        ? toolError('invalid_arguments', 'No lease to extend: call begin_triage.')
        : heldError(r.lease);
    return toolOk({ lease: leaseView(r.lease) });
  },
});
