import * as z from 'zod';
import { payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError, toolOk } from '../tool-error.ts';
import { GROUPED, grouped, VIP_LISTS } from '../vip-results.ts';

export const addVip = defineTool({
  name: 'add_vip',
  needs: 'setup',
  spansInboxes: true,
  title: 'Add VIPs',
  description:
    'Adds VIP addresses (emails) and bare domains (domains, e.g. example.com — it covers subdomains). Entries are normalised; an invalid one refuses the whole call.',
  input: z.strictObject(VIP_LISTS),
  output: payload({ added: GROUPED, vips: GROUPED }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    const { entries, invalid } = ctx.services.vips.parse(args);
    if (invalid.length > 0) {
      return toolError(
        'invalid_arguments',
        `Not valid: ${invalid
          .slice(0, 10)
          .map((s) => JSON.stringify(s.slice(0, 80)))
          .join(', ')}. Emails must be addresses, domains bare names like example.com. Nothing was added.`,
        { details: { invalid: invalid.slice(0, 100) } },
      );
    }
    if (entries.length === 0) return toolError('invalid_arguments', 'Give at least one email or domain.');
    const added = await ctx.services.vips.add(ctx.principal.accountId, entries);
    if (!added.ok)
      return toolError(
        added.error.code,
        `${added.error.message} Entries go with remove_vip, after the person agrees.`,
      );
    return toolOk({
      added: grouped(entries),
      vips: grouped(await ctx.services.vips.everyone(ctx.principal)),
    });
  },
});
