import * as z from 'zod';
import { DEMO, payload, SENDER_TEXT } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOk } from '../tool-error.ts';
import { fromUnsubscribeError } from '../unsubscribe-results.ts';

const SAY = {
  done: 'Done: the sender confirmed the unsubscribe request.',
  rejected:
    'I sent the unsubscribe request, but the sender’s server refused it. You may need to unsubscribe on their website.',
  refused:
    'I did not send the request: the link points somewhere this service never contacts (a private or unsafe address).',
  unknown:
    'I sent the unsubscribe request but got no answer, so I can’t tell whether it worked. I won’t send it again on my own.',
} as const;

export const confirmUnsubscribe = defineTool({
  name: 'confirm_unsubscribe',
  needs: 'unsubscribe',
  title: 'Send an approved unsubscribe request',
  description:
    'Sends the single RFC 8058 one-click request of a pending unsubscribe, after the person approved it: pass the ' +
    'pendingUnsubscribeId and approvalCode from propose_unsubscribe and humanApprovedInChat: true. Each approval makes one ' +
    'request, within 24 hours. The result says whether the sender’s server accepted it.',
  input: z.strictObject({
    pendingUnsubscribeId: z.string().max(64),
    approvalCode: z.string().max(128),
    humanApprovedInChat: z.literal(true).optional(),
  }),
  output: payload({
    unsubscribed: z.boolean(),
    result: z.enum(['done', 'rejected', 'refused', 'unknown']),
    httpStatus: z.number().nullable(),
    sender: SENDER_TEXT,
    ...DEMO,
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  calledByViews: true,
  async run(args, ctx) {
    const r = await ctx.services.unsubscribe.confirm(ctx.principal, {
      pendingUnsubscribeId: args.pendingUnsubscribeId,
      approvalCode: args.approvalCode,
      approvedInChat: args.humanApprovedInChat === true,
      confirmedInApp: false,
    });
    if (!r.ok) return fromUnsubscribeError(r.error, ctx.marker);
    const { pending, isDemo } = r.value;
    const result =
      pending.status === 'done' || pending.status === 'rejected' || pending.status === 'refused'
        ? pending.status
        : 'unknown';
    return toolOk({
      unsubscribed: result === 'done',
      result,
      httpStatus: pending.httpStatus,
      sender: pending.senderAddress,
      ...(isDemo && { isDemo: true as const }),
      sayToHuman: isDemo ? 'Done (demo inbox: the request was recorded, nothing was sent).' : SAY[result],
    });
  },
});
