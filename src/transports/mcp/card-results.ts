import * as z from 'zod';
import type { CardError, IssuedCode } from '../../core/drafts/draft-cards.ts';
import { unseenNotice } from '../../core/drafts/draft-input.ts';
import type { ToolFailure } from './tool-definition.ts';
import { toolError } from './tool-error.ts';

/** Where the card's code goes: the result's `_meta`, which hosts hand to the view and never to the model. */
export const CARD_META_KEY = 'inbox-triage/card';

export const cardForView = (card: IssuedCode, draft: { to: string; subject: string; body: string }) => {
  const unseen = unseenNotice(draft);
  return {
    [CARD_META_KEY]: {
      code: card.code,
      expiresAt: card.expiresAt.toISOString(),
      ...(unseen !== undefined && { unseen }),
    },
  };
};

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
