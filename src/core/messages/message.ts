import type { Brand } from '../../lib/brand.ts';
import type { InboxId } from '../inboxes/inbox.ts';
import type { FolderId } from './folder.ts';

export type MessageId = Brand<string, 'MessageId'>;

export function parseMessageId(raw: string): MessageId | undefined {
  return /^msg_[a-z0-9]{20}$/.test(raw) ? (raw as MessageId) : undefined;
}

export interface Address {
  readonly address: string;
  readonly name: string;
}

/** What a message's summary says of it, wherever it comes from: the provider (RemoteSummary) or the index. */
export interface SummaryFields {
  readonly threadId: string | null;
  readonly internetMessageId: string | null;
  readonly subject: string;
  readonly from: Address;
  readonly to: readonly Address[];
  readonly snippet: string;
  readonly date: Date;
  readonly unread: boolean;
  readonly starred: boolean;
  /** IMAP keywords / Gmail labels / Graph categories; never system flags. */
  readonly labels: readonly string[];
  readonly hasAttachments: boolean;
  readonly size: number;
  readonly listId: string | null;
  readonly listUnsubscribe: string | null;
  readonly listUnsubscribePost: boolean;
}

/** What the index keeps per message: enough for previews, filters and triage; never the body. */
export interface MessageSummary extends SummaryFields {
  readonly id: MessageId;
  readonly inboxId: InboxId;
  readonly folderId: FolderId;
  /** The provider's handle inside the folder (IMAP UID, Gmail id, Graph immutable id). */
  readonly providerRef: string;
  /** Sort key for IMAP windows (the UID); providers without numeric refs use the date. */
  readonly position: number;
}
