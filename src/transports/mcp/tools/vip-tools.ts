import * as z from 'zod';
import type { VipEntry } from '../../../core/vips/vip-store.ts';
import { payload, SENDER_TEXT } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError, toolOk } from '../tool-error.ts';

const lists = {
  emails: z.array(z.string().max(254)).max(100).optional(),
  domains: z.array(z.string().max(253)).max(100).optional(),
};

// An address's words are its owner's, whoever put it on the list: marked like every address (decision 0017).
const GROUPED = z.object({ emails: z.array(SENDER_TEXT), domains: z.array(z.string()) });

const grouped = (entries: readonly VipEntry[]) => ({
  emails: entries.filter((e) => e.kind === 'email').map((e) => e.value),
  domains: entries.filter((e) => e.kind === 'domain').map((e) => e.value),
});

export const listVips = defineTool({
  name: 'list_vips',
  title: 'List VIPs',
  description:
    'The account’s VIP people (addresses) and domains: the VIP list and the triage profile’s vip.people. VIP mail is never moved in bulk and always gets the person’s look.',
  input: z.strictObject({}),
  output: payload(GROUPED.shape),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(_args, ctx) {
    return toolOk(grouped(await ctx.services.vips.everyone(ctx.principal.accountId)));
  },
});

export const addVip = defineTool({
  name: 'add_vip',
  title: 'Add VIPs',
  description:
    'Adds VIP addresses (emails) and bare domains (domains, e.g. example.com — it covers subdomains). Entries are normalised; an invalid one refuses the whole call.',
  input: z.strictObject(lists),
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
      vips: grouped(await ctx.services.vips.everyone(ctx.principal.accountId)),
    });
  },
});

export const removeVip = defineTool({
  name: 'remove_vip',
  title: 'Remove VIPs',
  description:
    'Without confirmed: true it changes nothing and lists what would be removed — show that to the person. Call again with ' +
    'confirmed: true only after they agreed to remove exactly those entries. Removes them from the VIP list and from every ' +
    'vip.people of the triage profile.',
  input: z.strictObject({ ...lists, confirmed: z.boolean().optional() }),
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
    const current = await ctx.services.vips.everyone(ctx.principal.accountId);
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
      vips: grouped(await ctx.services.vips.everyone(ctx.principal.accountId)),
    });
  },
});
