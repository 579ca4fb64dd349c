import * as z from 'zod';
import { profileWithin, TRIAGE_PREFS, TRIAGE_PROFILE } from '../../../core/profile/triage-profile.ts';
import { payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOk } from '../tool-error.ts';
import { ownedInbox } from '../tool-helpers.ts';

export const getTriageProfile = defineTool({
  name: 'get_triage_profile',
  needs: 'read',
  title: 'Get the triage profile',
  description:
    'The person’s triageProfile: defaults (cadence, quiet hours, junk rules, vip.people, sending) and per-inbox overrides. With ' +
    'inboxId it adds effective: the defaults with that inbox’s override merged in — follow those for that inbox.',
  input: z.strictObject({ inboxId: z.string().optional() }),
  output: payload({ triageProfile: TRIAGE_PROFILE, effective: TRIAGE_PREFS.optional() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ inboxId }, ctx) {
    // Overrides of inboxes the agent may not reach are not its to read (decision 0142).
    const triageProfile = profileWithin(
      await ctx.services.profiles.get(ctx.principal.accountId),
      ctx.principal.inboxes,
    );
    if (inboxId === undefined) return toolOk({ triageProfile });
    const inbox = await ownedInbox(ctx, inboxId);
    if (!inbox.ok) return inbox.error;
    return toolOk({
      triageProfile,
      effective: await ctx.services.profiles.effective(ctx.principal.accountId, inbox.inbox.id),
    });
  },
});
