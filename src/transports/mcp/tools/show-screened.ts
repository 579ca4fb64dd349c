import * as z from 'zod';
import { REVIEW_PAYLOAD, reviewPayload, reviewText, reviewWindow } from '../screening-results.ts';
import { defineTool } from '../tool-definition.ts';
import { allows } from '../../../core/auth/agent-powers.ts';
import { toolOkForView } from '../tool-error.ts';
import { clamp, namedInboxes } from '../tool-helpers.ts';
import { VIEWS } from '../views/views.ts';
import { REVIEW_INPUT } from './review-screened.ts';

export const showScreened = defineTool({
  name: 'show_screened',
  needs: 'read',
  title: 'Show screened mail',
  description:
    'Shows the person the mail in Screened so they can rescue or report it: in apps with MCP Apps, a list with Rescue and ' +
    'Report buttons, a period picker and inbox tabs. Hosts without it get the same data as review_screened plus `text`, a ' +
    'numbered list to show the person as it is; act on their choice with ' +
    'rescue_screened or report_screened and the row’s id. inbox, days (default 7), offset and limit (1 to 100, default 25) ' +
    'as in review_screened.',
  input: z.strictObject(REVIEW_INPUT),
  output: REVIEW_PAYLOAD.extend({
    text: z.string(),
    /** What the view's tabs and period picker show: the inboxes, the one chosen (null: all) and the days (null: since). */
    inboxes: z.array(z.object({ id: z.string(), label: z.string() })),
    inbox: z.string().nullable(),
    days: z.number().nullable(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  resourceUri: VIEWS.screened.uri,
  calledByViews: true,
  async run(args, ctx) {
    const named = await namedInboxes(ctx, args.inbox);
    if (!named.ok) return named.error;
    const window = reviewWindow(args, ctx.clock.now());
    if (!window.ok) return window.error;
    const review = await ctx.services.screening.review(named.inboxes, {
      since: window.since,
      limit: clamp(args.limit, 1, 100, 25),
      offset: clamp(args.offset, 0, Number.MAX_SAFE_INTEGER, 0),
    });
    const p = reviewPayload(review, window.days);
    // The view offers Rescue and Report only to an agent the person lets screen (decision 0141).
    return toolOkForView(
      {
        ...p,
        text: reviewText(p, ctx.marker),
        sayToHuman: p.digest,
        inboxes: named.unpaused.map((i) => ({ id: i.id, label: i.label })),
        inbox: (args.inbox?.trim() ?? '') === '' ? null : (named.inboxes.at(0)?.id ?? null),
        days: window.days,
      },
      { may: { screen: allows(ctx.principal.powers, 'screen') } },
    );
  },
});
