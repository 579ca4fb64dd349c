import type { Brand } from '../../lib/brand.ts';
import type { InboxId } from '../inboxes/inbox.ts';

export type FolderId = Brand<string, 'FolderId'>;

/** Provider-neutral names for the folders every mailbox has (DESIGN.md §4); others keep the provider's path. */
export const CANONICAL_FOLDERS = [
  'inbox',
  'sent',
  'drafts',
  'archive',
  'spam',
  'trash',
  'all',
  'screened',
] as const;
export type CanonicalFolder = (typeof CANONICAL_FOLDERS)[number];

/**
 * Where sync stands in one folder (RFC 3501 UIDVALIDITY/UIDNEXT, RFC 7162 HIGHESTMODSEQ; for Gmail/Graph the
 * history id or delta link goes in `cursor`). `version` increases on every write and guards compare-and-set.
 */
export interface FolderSyncState {
  readonly uidValidity: string | null;
  readonly uidNext: number | null;
  readonly highestModseq: string | null;
  readonly cursor: string | null;
  /** Lowest provider position inside the synced window; loading older mail lowers it. */
  readonly windowLow: number | null;
  readonly syncedAt: Date | null;
  readonly version: number;
}

export interface Folder {
  readonly id: FolderId;
  readonly inboxId: InboxId;
  /** The provider's own id or path (IMAP path, Gmail label id, Graph folder id). */
  readonly path: string;
  readonly name: string;
  readonly canonical: CanonicalFolder | null;
  /** Part of the inbox's selected folders: synced and listed. */
  readonly selected: boolean;
  readonly sync: FolderSyncState;
}

export interface DiscoveredFolder {
  readonly path: string;
  readonly name: string;
  readonly canonical: CanonicalFolder | null;
}
