import * as z from 'zod';
import { REASON_MAX, SCREEN_BATCH, VERDICTS } from '../../../core/screening/screening.ts';
import { payload } from '../output-shapes.ts';
import { fromScreeningError } from '../screening-results.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOk } from '../tool-error.ts';

const TARGET = { inboxId: z.string(), messageId: z.string() };

export const confirmScreening = defineTool({
  name: 'confirm_screening',
  needs: 'screen',
  title: 'Apply screening verdicts',
  description:
    `Applies verdicts on messages screen_junk handed out (within the hour): up to ${String(SCREEN_BATCH)} ` +
    '{ inboxId, messageId, verdict: "junk" | "unsure" | "fine", reason }. junk moves the message to the Screened folder, ' +
    'where the person reviews it (review_screened); unsure leaves it in the inbox marked Screening-Unsure; fine leaves it and ' +
    'it is not offered again. Ids not handed out to you, already judged, from VIP or known-good senders, or moved out of the inbox since are reported in ' +
    'skipped and nothing happens to them. The changes share one undoId for undo_action. Another agent’s triage lease on ' +
    'the inbox refuses the call (lease_held).',
  input: z.strictObject({
    verdicts: z
      .array(
        z.strictObject({
          ...TARGET,
          verdict: z.enum(VERDICTS),
          reason: z.string().max(REASON_MAX).optional(),
        }),
      )
      .min(1)
      .max(SCREEN_BATCH),
  }),
  output: payload({
    applied: z.array(z.object({ ...TARGET, verdict: z.enum(VERDICTS), id: z.string() })),
    skipped: z.array(
      z.object({
        ...TARGET,
        reason: z.enum(['not_offered', 'duplicate', 'vip', 'known_good', 'not_found']),
      }),
    ),
    undoId: z.string().nullable(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(args, ctx) {
    const r = await ctx.services.screening.confirm(ctx.principal, args.verdicts);
    if (!r.ok) return fromScreeningError(r.error, ctx.marker);
    const o = r.value;
    const n = (v: string) => o.applied.filter((a) => a.verdict === v).length;
    const parts = [
      `I moved ${String(n('junk'))} to Screened, marked ${String(n('unsure'))} as unsure and left ${String(n('fine'))} as fine.`,
    ];
    if (o.skipped.length > 0) parts.push(`${String(o.skipped.length)} could not be applied.`);
    if (o.undoId !== null) parts.push('This can be undone.');
    const agentOnly: string[] = [];
    if (o.undoId !== null)
      agentOnly.push(`To reverse the moves and marks, call undo_action with undoId ${o.undoId}.`);
    if (o.skipped.some((s) => s.reason === 'not_offered'))
      agentOnly.push(
        'Skipped not_offered: only messages handed out by screen_junk to this account in the last hour, not yet judged, can be judged.',
      );
    if (o.withoutLease)
      agentOnly.push(
        'You do not hold the triage lease on this inbox; take it with begin_triage for a full pass.',
      );
    return toolOk({
      applied: [...o.applied],
      skipped: [...o.skipped],
      undoId: o.undoId,
      sayToHuman: parts.join(' '),
      agentOnly,
    });
  },
});
