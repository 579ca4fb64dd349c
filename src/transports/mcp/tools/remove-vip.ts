import * as z from 'zod';
import type { VipEntry } from '../../../core/vips/vip-store.ts';
import { payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError, toolOk } from '../tool-error.ts';
import { GROUPED, grouped, VIP_LISTS } from '../vip-results.ts';

export const removeVip = defineTool({
  name: 'remove_vip',
  needs: 'setup',
  spansInboxes: true,
  title: 'Remove VIPs',
  description:
    'Without confirmed: true it changes nothing and lists what would be removed — show that to the person. Call again with ' +
    'confirmed: true only after they agreed to remove exactly those entries. Removes them from the VIP list and from every ' +
    'vip.people of the triage profile.',
  input: z.strictObject({ ...VIP_LISTS, confirmed: z.boolean().optional() }),
  output: z.union([
    payload({ removed: z.literal(false), wouldRemove: GROUPED, notOnList: GROUPED }),
    payload({ removed: z.literal(true), removedEntries: GROUPED, notOnList: GROUPED, vips: GROUPED }),
  ]),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    const { entries, invalid } = ctx.services.vips.parse(args);
    if (invalid.length > 0)
      return toolError(
        'invalid_arguments',
        `Not valid: ${invalid
          .slice(0, 10)
          .map((s) => JSON.stringify(s.slice(0, 80)))
          .join(', ')}.`,
      );
    const current = await ctx.services.vips.everyone(ctx.principal);
    const key = (e: VipEntry) => `${e.kind}:${e.value}`;
    const have = new Set(current.map(key));
    const onList = entries.filter((e) => have.has(key(e)));
    const notOnList = entries.filter((e) => !have.has(key(e)));
    if (args.confirmed !== true) {
      return toolOk({
        removed: false,
        wouldRemove: grouped(onList),
        notOnList: grouped(notOnList),
        agentOnly: [
          'Nothing was removed. Show the person wouldRemove; only if they agree, call remove_vip again with the same entries and confirmed: true.',
        ],
      });
    }
    await ctx.services.vips.remove(ctx.principal.accountId, onList);
    return toolOk({
      removed: true,
      removedEntries: grouped(onList),
      notOnList: grouped(notOnList),
      vips: grouped(await ctx.services.vips.everyone(ctx.principal)),
    });
  },
});
