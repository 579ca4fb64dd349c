import * as z from 'zod';
import { draftView } from '../../../core/drafts/draft-view.ts';
import { DRAFT_VIEW, payload } from '../output-shapes.ts';
import { CARD_INPUT, cardForView, fromCardError } from '../card-results.ts';
import { defineTool } from '../tool-definition.ts';
import { toolOkForView } from '../tool-error.ts';
import { ownedInbox } from '../tool-helpers.ts';
import { VIEWS } from '../views/views.ts';
import { fromDraftError } from './create-draft.ts';

export const updateDraftFromCard = defineTool({
  name: 'update_draft_from_card',
  needs: 'draft',
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
    const r = await ctx.services.cards.update(ctx.principal, nonce, { to, subject, body });
    if (!r.ok) return 'card' in r.error ? fromCardError(r.error) : fromDraftError(r.error);
    const inbox = await ownedInbox(ctx, r.value.draft.inboxId);
    if (!inbox.ok) return inbox.error;
    return toolOkForView(
      { draft: draftView(r.value.draft, inbox.inbox), sayToHuman: 'Saved to your Drafts folder.' },
      cardForView(r.value.next, r.value.draft),
    );
  },
});
