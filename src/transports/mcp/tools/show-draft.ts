import * as z from 'zod';
import { draftView } from '../../../core/drafts/draft-view.ts';
import { DRAFT_STATUSES } from '../../../core/drafts/draft.ts';
import { DRAFT_VIEW, payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError, toolOkForView } from '../tool-error.ts';
import { ownedInbox } from '../tool-helpers.ts';
import { VIEWS } from '../views/views.ts';
import { cardForView } from '../card-results.ts';

export const showDraft = defineTool({
  name: 'show_draft',
  needs: 'draft',
  title: 'Show a draft',
  description:
    'Shows a draft create_draft wrote (draftId is the draft id it returned) as a card the person can edit and, when sending ' +
    'is available, send by pressing Send themselves. Hosts without MCP Apps get the draft as text: show it to the person as it is.',
  input: z.strictObject({ inboxId: z.string(), draftId: z.string().max(64) }),
  output: payload({
    inboxId: z.string(),
    draft: DRAFT_VIEW.extend({ status: z.enum(DRAFT_STATUSES) }),
    /** Whether the card offers Send: sending is on for the account and the inbox can send. */
    sendAvailable: z.boolean(),
    text: z.string(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  resourceUri: VIEWS.draft.uri,
  calledByViews: true,
  async run({ inboxId, draftId }, ctx) {
    const inbox = await ownedInbox(ctx, inboxId);
    if (!inbox.ok) return inbox.error;
    const draft = await ctx.services.drafts.get(ctx.principal, draftId);
    if (draft?.inboxId !== inbox.inbox.id) {
      return toolError(
        'invalid_arguments',
        'No draft with this id in this inbox: use the draft id create_draft returned.',
      );
    }
    const view = draftView(draft, inbox.inbox);
    // The card's single-use code travels in the result's _meta, for the view alone (decision 0023).
    const card = draft.status === 'draft' ? await ctx.services.cards.issue(draft) : undefined;
    return toolOkForView(
      {
        inboxId: inbox.inbox.id,
        draft: { ...view, status: draft.status },
        sendAvailable: await ctx.services.sending.available(ctx.principal.accountId, inbox.inbox),
        text: `To: ${view.to}\nSubject: ${view.subject}\n\n${view.text}`,
      },
      card === undefined ? {} : cardForView(card, draft),
    );
  },
});
