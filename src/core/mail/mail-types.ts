import type { DiscoveredFolder } from '../messages/folder.ts';
import type { Address, SummaryFields } from '../messages/message.ts';

/**
 * A folder (mailbox, label, Graph folder) as the provider lists it: its `path` is the provider's own id or path
 * (IMAP path in Unicode; Gmail label id; Graph folder id). The folder store takes these as they come.
 */
export type RemoteFolder = DiscoveredFolder;

/** Where a folder's sync stands at the provider (RFC 3501 UIDVALIDITY/UIDNEXT, RFC 7162 HIGHESTMODSEQ). */
export interface SyncCursor {
  readonly uidValidity: string;
  readonly uidNext: number;
  /** Null when the server has no CONDSTORE. */
  readonly highestModseq: string | null;
  /** Lowest position (UID) inside the synced window. */
  readonly windowLow: number;
}

/** What the index keeps of a message, as a provider reports it (no body). */
export interface RemoteSummary extends SummaryFields {
  /** The provider's handle inside the folder (IMAP UID in decimal). */
  readonly ref: string;
  /** Numeric order inside the folder (IMAP UID); newer is larger. */
  readonly position: number;
}

export interface FlagState {
  readonly ref: string;
  readonly unread: boolean;
  readonly starred: boolean;
  readonly labels: readonly string[];
}

/** One folder's changes since a cursor. */
export interface FolderChanges {
  readonly cursor: SyncCursor;
  /** UIDVALIDITY changed (or first sync): forget every ref known in this folder before applying `added`. */
  readonly reset: boolean;
  /** Messages that entered the window: new mail, or the whole window on a first sync or reset. */
  readonly added: readonly RemoteSummary[];
  /** New flag state of messages already known. */
  readonly flags: readonly FlagState[];
  /** Refs that left the folder (expunged, or moved by someone else). */
  readonly removed: readonly string[];
}

export interface AttachmentInfo {
  /** Opaque, provider-specific (IMAP body part number such as "2" or "1.2"). */
  readonly partId: string;
  readonly filename: string;
  readonly contentType: string;
  readonly size: number;
  readonly inline: boolean;
}

/** A full message, parsed, for reading it whole. Text is untrusted data; the caller fences it. */
export interface FullMessage {
  readonly summary: RemoteSummary;
  readonly cc: readonly Address[];
  readonly replyTo: readonly Address[];
  readonly inReplyTo: string | null;
  readonly references: readonly string[];
  readonly text: string;
  /** The HTML part, when there is one (already decoded; the caller turns it into text). */
  readonly html: string | null;
  readonly attachments: readonly AttachmentInfo[];
  /**
   * The topmost `Authentication-Results` header (RFC 8601), unfolded: the one the receiving server added; null
   * when there is none. Sender text: parsed into result keywords, never shown as it is.
   */
  readonly authenticationResults: string | null;
}

export interface AttachmentContent {
  readonly filename: string;
  readonly contentType: string;
  readonly size: number | null;
  readonly content: AsyncIterable<Uint8Array>;
}

export interface SearchHit {
  readonly path: string;
  readonly summary: RemoteSummary;
}

/**
 * How an inbox logs in; sealed at rest, never shown. `password` for IMAP/iCloud; `oauth` an access token for
 * IMAP XOAUTH2; `google` / `microsoft` the refresh token of a provider sign-in (the Gmail and Graph adapters
 * trade it for access tokens; Microsoft's rotates and is replaced as it does).
 */
export type MailCredential =
  | { readonly kind: 'password'; readonly username: string; readonly password: string }
  | { readonly kind: 'oauth'; readonly username: string; readonly accessToken: string }
  | { readonly kind: 'google'; readonly username: string; readonly refreshToken: string }
  | { readonly kind: 'microsoft'; readonly username: string; readonly refreshToken: string };

/** Where an IMAP-speaking provider lives. */
export interface ImapEndpoint {
  readonly host: string;
  readonly port: number;
}
