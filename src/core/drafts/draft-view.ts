import type { Inbox } from '../inboxes/inbox.ts';
import type { Draft } from './draft.ts';

/** The draft object of contract §2, as REST returns it (HTTP 201) and the MCP draft tools embed it. */
export interface DraftView {
  readonly id: string;
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly provider: string;
  readonly providerDraftId: string | null;
  readonly threadId: string | null;
  readonly isDemo: boolean;
  readonly createdAt: string;
}

export function draftView(draft: Draft, inbox: Inbox): DraftView {
  return {
    id: draft.id,
    to: draft.to,
    subject: draft.subject,
    text: draft.body,
    provider: inbox.provider,
    providerDraftId: draft.providerDraftId,
    threadId: draft.threadId,
    isDemo: inbox.isDemo,
    createdAt: draft.createdAt.toISOString(),
  };
}
