import * as z from 'zod';
import { draftView } from '../../../core/drafts/draft-view.ts';
import { DRAFT_STATUSES } from '../../../core/drafts/draft.ts';
import { DRAFT_VIEW, payload } from '../output-shapes.ts';
import { defineTool } from '../tool-definition.ts';
import { toolError, toolOk } from '../tool-error.ts';
import { ownedInbox } from '../tool-helpers.ts';

export const showDraft = defineTool({
  name: 'show_draft',
  title: 'Show a draft',
  description:
    'Shows a draft create_draft wrote (draftId is the draft id it returned) so the person can read it before deciding to send. ' +
    'Hosts without MCP Apps get the draft as text: show it to the person as it is.',
  input: z.strictObject({ inboxId: z.string(), draftId: z.string().max(64) }),
  output: payload({ draft: DRAFT_VIEW.extend({ status: z.enum(DRAFT_STATUSES) }), text: z.string() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run({ inboxId, draftId }, ctx) {
    const inbox = await ownedInbox(ctx, inboxId);
    if (!inbox.ok) return inbox.error;
    const draft = await ctx.services.drafts.get(ctx.principal.accountId, draftId);
    if (draft?.inboxId !== inbox.inbox.id) {
      return toolError(
        'invalid_arguments',
        'No draft with this id in this inbox: use the draft id create_draft returned.',
      );
    }
    const view = draftView(draft, inbox.inbox);
    return toolOk({
      draft: { ...view, status: draft.status },
      text: `To: ${view.to}\nSubject: ${view.subject}\n\n${view.text}`,
    });
  },
});
