import * as z from 'zod';
import type { AddressOnlyReason } from '../../../core/screening/sender-rules.ts';
import { payload, SENDER_TEXT } from '../output-shapes.ts';
import { fromScreeningError } from '../screening-results.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOk } from '../tool-error.ts';

const WHY_ADDRESS: Readonly<Record<AddressOnlyReason, string>> = {
  free_mail: 'it is a big free-mail domain shared by millions of people',
  vip_domain: 'one of your VIPs uses that domain',
  own_domain: 'it is the domain of one of your own inboxes',
  known_good_domain: 'you marked a sender at that domain as good',
};

export const reportScreened = defineTool({
  name: 'report_screened',
  needs: 'screen',
  title: 'Report a screened message',
  description:
    'Moves a message from Screened to Spam and blocks its sender’s domain, so new mail from it goes to Screened on arrival. ' +
    'For a big free-mail domain (gmail.com, outlook.com…), a domain a VIP or a known-good sender uses, or the person’s own ' +
    'domain, only the address is blocked; the result says which and why. When the person’s mail provider found the ' +
    'message failed DMARC (its From likely forged) and the person gets other mail the block would catch, nothing is ' +
    'blocked: that mail is the real sender’s (notBlockedBecause: sender_failed_dmarc). id is a row id from review_screened. Returns an undoId for the move ' +
    '(the block stays; it is in the triage profile). When the person let this agent reach only some inboxes, the block ' +
    'is that inbox’s alone (scope: this_inbox).',
  input: z.strictObject({ inboxId: z.string(), id: z.string().max(64) }),
  output: payload({
    id: z.string(),
    sender: SENDER_TEXT,
    blocked: z
      .object({
        kind: z.enum(['domain', 'address']),
        value: SENDER_TEXT,
        because: z.enum(['free_mail', 'vip_domain', 'own_domain', 'known_good_domain']).optional(),
      })
      .nullable(),
    /** Present when nothing was blocked. */
    notBlockedBecause: z.enum(['sender_failed_dmarc', 'not_an_address']).optional(),
    /** Where a block applies: every inbox, or only this one (an agent limited to some inboxes). */
    scope: z.enum(['every_inbox', 'this_inbox']),
    undoId: z.string().nullable(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  calledByViews: true,
  async run(args, ctx) {
    const r = await ctx.services.screening.report(ctx.principal, args.inboxId, args.id);
    if (!r.ok) return fromScreeningError(r.error, ctx.marker);
    const b = r.value.blocked;
    const here = r.value.scope === 'this_inbox' ? ' in this inbox' : '';
    const sayToHuman = r.value.spared
      ? 'I moved the message to Spam and blocked nothing: your mail provider found it failed DMARC, so its sender ' +
        'address is likely forged, and blocking it would send the other mail you get from that sender to Screened.'
      : b === null
        ? 'I moved the message to Spam. Its sender address is not an ordinary one, so I could not block it.'
        : b.kind === 'domain'
          ? `I moved the message to Spam and blocked its sender’s domain: new mail from it will go to Screened${here}.`
          : `I moved the message to Spam and blocked only this sender’s address${here}, not the whole domain, because ${WHY_ADDRESS[b.because]}.`;
    return toolOk({
      id: args.id,
      sender: r.value.sender,
      blocked:
        b === null
          ? null
          : { kind: b.kind, value: b.value, ...(b.kind === 'address' && { because: b.because }) },
      ...(b === null && { notBlockedBecause: r.value.spared ? 'sender_failed_dmarc' : 'not_an_address' }),
      scope: r.value.scope,
      undoId: r.value.undoId,
      sayToHuman,
      ...(r.value.undoId !== null && {
        agentOnly: [
          `undo_action with undoId ${r.value.undoId} moves it back to Screened; the block stays (update_triage_profile removes it).`,
        ],
      }),
    });
  },
});
