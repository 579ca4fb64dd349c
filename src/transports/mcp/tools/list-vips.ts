import * as z from 'zod';
import { payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOk } from '../tool-error.ts';
import { GROUPED, grouped } from '../vip-results.ts';

export const listVips = defineTool({
  name: 'list_vips',
  needs: 'read',
  title: 'List VIPs',
  description:
    'The account’s VIP people (addresses) and domains: the VIP list and the triage profile’s vip.people. VIP mail is never moved in bulk and always gets the person’s look.',
  input: z.strictObject({}),
  output: payload(GROUPED.shape),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(_args, ctx) {
    return toolOk(grouped(await ctx.services.vips.everyone(ctx.principal)));
  },
});
