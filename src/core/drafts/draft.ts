import type { AccountId } from '../accounts/account.ts';
import type { InboxId } from '../inboxes/inbox.ts';

export const DRAFT_STATUSES = ['draft', 'sent', 'discarded'] as const;
export type DraftStatus = (typeof DRAFT_STATUSES)[number];

/** A draft an agent wrote; the mailbox holds the copy the person sees, we hold what an approval is bound to. */
export interface Draft {
  readonly id: string;
  readonly accountId: AccountId;
  readonly inboxId: InboxId;
  /** Recipients as written, validated: addresses separated by commas. */
  readonly to: string;
  readonly subject: string;
  readonly body: string;
  readonly threadId: string | null;
  readonly inReplyTo: string | null;
  readonly references: readonly string[];
  /** The Message-ID the draft and the sent message carry (`<…@domain>`): how a send is found again after a crash. */
  readonly internetMessageId: string;
  /**
   * Where the mailbox copy lives (the Drafts folder path) and its id there (null when the server did not say).
   * `folderPath` is null until the copy is recorded: a draft still without one ten minutes after it was written
   * is a creation that did not finish, resolved by `DraftService.recoverUnfinished` (decision 0031).
   */
  readonly folderPath: string | null;
  readonly providerDraftId: string | null;
  /** Bumped on every edit; an approval is bound to one version. */
  readonly version: number;
  readonly status: DraftStatus;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export const PENDING_SEND_STATUSES = [
  'pending',
  'locked',
  'sending',
  'sent',
  'unknown',
  'discarded',
] as const;
/**
 * `pending`: waiting for the code. `locked`: too many wrong codes. `sending`: claimed, the SMTP exchange is under
 * way (or the process died during it). `sent`: the server accepted it. `unknown`: the process died or the connection
 * broke after the message may have been accepted — never retried automatically, the person checks Sent.
 * `discarded`: the person declined it in the app; the code no longer sends.
 */
export type PendingSendStatus = (typeof PENDING_SEND_STATUSES)[number];

export interface PendingSend {
  readonly id: string;
  readonly accountId: AccountId;
  readonly draftId: string;
  readonly draftVersion: number;
  /** SHA-256 (hex) of the approval code; the code itself is never stored. */
  readonly codeHash: string;
  readonly attempts: number;
  readonly status: PendingSendStatus;
  readonly createdAt: Date;
  readonly expiresAt: Date;
  readonly claimedAt: Date | null;
  readonly finishedAt: Date | null;
  readonly error: string | null;
  /** The credential whose call asked for this send (shown to the person in Waiting for you); null for old rows. */
  readonly requestedBy: Requester | null;
}

/** Who asked: the credential of the agent's call. */
export interface Requester {
  readonly kind: 'api_key' | 'access_token' | 'session';
  readonly id: string;
  readonly clientId: string | null;
}
