import * as z from 'zod';
import { profileWithin, TRIAGE_PREFS, TRIAGE_PROFILE } from '../../../core/profile/triage-profile.ts';
import { payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError, toolOk } from '../tool-error.ts';
import { ownedInbox } from '../tool-helpers.ts';

/**
 * A patch of the preferences: every field optional at every depth (objects merge; arrays and scalars replace), so
 * `tools/list` shows what can be set. ProfileService still validates the merged profile as a whole.
 */
const PREFS_PATCH = z
  .strictObject({
    cadence: TRIAGE_PREFS.shape.cadence.partial(),
    quietHours: TRIAGE_PREFS.shape.quietHours.unwrap().partial().nullable(),
    junk: TRIAGE_PREFS.shape.junk.partial(),
    vip: TRIAGE_PREFS.shape.vip.partial(),
    sending: TRIAGE_PREFS.shape.sending.partial(),
  } satisfies Record<keyof typeof TRIAGE_PREFS.shape, z.ZodType>)
  .partial();

const PROFILE_PATCH = z
  .strictObject({
    defaults: PREFS_PATCH,
    inboxes: z.record(TRIAGE_PROFILE.shape.inboxes.keyType, PREFS_PATCH),
  } satisfies Record<keyof typeof TRIAGE_PROFILE.shape, z.ZodType>)
  .partial();

export const updateTriageProfile = defineTool({
  name: 'update_triage_profile',
  needs: 'setup',
  title: 'Update the triage profile',
  description:
    'Deep-merges patch onto the stored triageProfile: include only the fields to change, e.g. { "defaults": { "cadence": ' +
    '{ "everyHours": 4 } } } or { "inboxes": { "<inboxId>": { "quietHours": null } } }. Unknown fields and invalid values ' +
    'are refused with their paths and nothing is saved. Change it only when the person asks. A patch that turns ' +
    'sending.requireInAppConfirmation off is refused (human_approval_required: only the person can, in Settings); one ' +
    'that takes an entry off vip.people is refused (vip_confirmation_required: use remove_vip). An agent the person let ' +
    'reach only some inboxes may change only their overrides (inboxes.<inboxId>), not the defaults (not_allowed).',
  input: z.strictObject({ patch: PROFILE_PATCH }),
  output: payload({ triageProfile: TRIAGE_PROFILE }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ patch }, ctx) {
    for (const id of Object.keys(patch.inboxes ?? {})) {
      const owned = await ownedInbox(ctx, id);
      if (!owned.ok)
        return toolError('inbox_not_found', `inboxes.${id.slice(0, 40)}: no such inbox on this account.`);
    }
    const r = await ctx.services.profiles.update(ctx.principal, patch, 'agent');
    if (!r.ok) {
      const e = r.error;
      switch (e.code) {
        case 'invalid_arguments':
          return toolError(e.code, e.message, { details: { issues: e.issues } });
        case 'not_allowed':
          return toolError(e.code, `${e.message} Nothing was changed. Do not try another way round it.`, {
            sayToHuman:
              'You have let this agent reach only some of your inboxes, so it may change their own preferences but not the ones every inbox follows. To let it, choose every inbox for it under Settings → Advanced (an API key) or Settings → Connected agents.',
            details: { needs: e.needs },
          });
        case 'human_approval_required':
          return toolError(e.code, e.message, {
            sayToHuman:
              'Only you can turn off confirming every send and unsubscribe in the app: Settings → Sending, VIPs and triage.',
            details: { scopes: e.scopes },
          });
        case 'vip_confirmation_required': {
          // An address is its owner's words, whoever wrote it into the profile: marked as list_vips marks it.
          const entries = e.entries.map((x) => (x.includes('@') ? ctx.marker.wrap(x) : x));
          return toolError(
            e.code,
            `This patch would take ${entries.length === 1 ? 'a VIP' : 'VIPs'} off vip.people: ${entries.slice(0, 10).join(', ')}. Nothing was changed. VIPs leave only through remove_vip: call it with these entries, show the person what it would remove, and call again with confirmed: true only after they agree.`,
            { details: { entries } },
          );
        }
      }
    }
    return toolOk({
      // Other inboxes' overrides are not this agent's to read (decision 0142), in the answer either.
      triageProfile: profileWithin(r.value, ctx.principal.inboxes),
      sayToHuman: 'I updated your triage preferences.',
    });
  },
});
