import type { InboxId } from '../inboxes/inbox.ts';
import type { MessageId } from '../messages/message.ts';

/** One mailing-list sender of an inbox, aggregated over its indexed messages. */
export interface ListSender {
  readonly inboxId: InboxId;
  /** The List-Id when the mail carries one (RFC 2919), else the From address. */
  readonly senderKey: string;
  readonly listId: string | null;
  /** From the sender's latest message. */
  readonly address: string;
  readonly name: string;
  readonly messages: number;
  readonly unread: number;
  readonly lastSeen: Date;
  /** Some message advertises RFC 8058 one-click (an https link and the POST header); not yet DKIM-checked. */
  readonly oneClickAdvertised: boolean;
  /** The latest message with a List-Unsubscribe header: the one to check and propose from. */
  readonly latestMessageId: MessageId;
}

/**
 * Mailing-list senders in the local index: messages with a List-Id or a List-Unsubscribe header, grouped per
 * inbox and sender, most recently seen first (then by sender key, so pages never skip or repeat a row).
 */
export interface MailingListIndex {
  senders(
    inboxIds: readonly InboxId[],
    page: { readonly limit: number; readonly offset: number },
  ): Promise<{ rows: ListSender[]; total: number }>;
}
