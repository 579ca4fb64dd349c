import * as z from 'zod';
import type { CardError, IssuedCode } from '../../../core/drafts/draft-cards.ts';
import { draftView } from '../../../core/drafts/draft-view.ts';
import { DRAFT_VIEW, payload } from '../output-shapes.ts';
import type { ToolFailure } from '../tool-definition.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError, toolOkForView } from '../tool-error.ts';
import { ownedInbox } from '../tool-helpers.ts';
import { VIEWS } from '../views/views.ts';
import { fromDraftError } from './create-draft.ts';

/** Where the card's code goes: the result's `_meta`, which hosts hand to the view and never to the model. */
export const CARD_META_KEY = 'inbox-triage/card';

export const cardForView = (card: IssuedCode) => ({
  [CARD_META_KEY]: { code: card.code, expiresAt: card.expiresAt.toISOString() },
});

/**
 * The card's refusals, the codes a model calling the tool directly gets too (README, "The draft card"): a missing,
 * forged or foreign code, one of another draft or version → approval_invalid; spent → approval_used; older than 30
 * minutes → approval_expired; content other than the draft's → confirm_mismatch.
 */
export function fromCardError(e: CardError): ToolFailure {
  return toolError(e.code === 'draft_changed' ? 'approval_invalid' : e.code, e.message);
}

/** The card's fields; the same limits as create_draft. */
export const CARD_INPUT = {
  nonce: z.string().max(128),
  to: z.string().min(1).max(4000),
  subject: z.string().max(900),
  body: z.string().max(200_000),
};

export const updateDraftFromCard = defineTool({
  name: 'update_draft_from_card',
  title: 'Save the draft card',
  description:
    'App only: the draft card (show_draft) saves the person’s edit. It needs the single-use code the card received; agents ' +
    'never have one and use create_draft instead. The saved version replaces the mailbox copy, and earlier approvals of the ' +
    'draft stop working.',
  input: z.strictObject(CARD_INPUT),
  output: payload({ draft: DRAFT_VIEW }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  resourceUri: VIEWS.draft.uri,
  visibility: ['app'],
  async run({ nonce, to, subject, body }, ctx) {
    const r = await ctx.services.cards.update(ctx.principal.accountId, nonce, { to, subject, body });
    if (!r.ok) return 'card' in r.error ? fromCardError(r.error) : fromDraftError(r.error);
    const inbox = await ownedInbox(ctx, r.value.draft.inboxId);
    if (!inbox.ok) return inbox.error;
    return toolOkForView(
      { draft: draftView(r.value.draft, inbox.inbox), sayToHuman: 'Saved to your Drafts folder.' },
      cardForView(r.value.next),
    );
  },
});
