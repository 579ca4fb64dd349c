import type { AccountId } from '../accounts/account.ts';
import type { InboxId } from '../inboxes/inbox.ts';
import type { MessageId } from '../messages/message.ts';
import type { Requester } from '../drafts/draft.ts';

/**
 * pending → posting (claimed by one confirm) → done | rejected | unknown; pending → locked after too many wrong
 * codes. `refused` is a request the SSRF guard stopped before any connection.
 */
export type PendingUnsubscribeStatus =
  'pending' | 'posting' | 'done' | 'rejected' | 'refused' | 'unknown' | 'locked' | 'discarded';

/** An approval to send one unsubscribe request for one sender to one URL (DESIGN.md §4 approvals). */
export interface PendingUnsubscribe {
  readonly id: string;
  readonly accountId: AccountId;
  readonly inboxId: InboxId;
  readonly messageId: MessageId;
  /** The sender as the list is known: its List-Id when it has one, else the From address (lower case). */
  readonly senderKey: string;
  readonly senderAddress: string;
  readonly url: string;
  readonly codeHash: string;
  readonly attempts: number;
  readonly status: PendingUnsubscribeStatus;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly claimedAt: Date | null;
  readonly finishedAt: Date | null;
  /** The HTTP status the sender's server answered, when it answered. */
  readonly httpStatus: number | null;
  readonly error: string | null;
  /** The credential whose call proposed it; null for old rows. */
  readonly requestedBy: Requester | null;
}

/** The last finished request per sender of an inbox, for the sender list. */
export interface UnsubscribeResult {
  readonly inboxId: InboxId;
  readonly senderKey: string;
  readonly status: Extract<PendingUnsubscribeStatus, 'done' | 'rejected' | 'refused' | 'unknown'>;
  readonly finishedAt: Date;
}
