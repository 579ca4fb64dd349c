import type { InboxId } from '../inboxes/inbox.ts';
import type { DiscoveredFolder, Folder, FolderId, FolderSyncState } from './folder.ts';

export type SyncStateUpdate = Omit<FolderSyncState, 'version'>;

export interface FolderStore {
  /**
   * Records the folders a provider listed. Ids are stable per (inbox, path); folders no longer listed are
   * removed with their messages. New folders start unselected with an empty sync state.
   */
  replaceAll(
    inboxId: InboxId,
    folders: readonly DiscoveredFolder[],
    newId: () => FolderId,
  ): Promise<Folder[]>;
  list(inboxId: InboxId): Promise<Folder[]>;
  get(inboxId: InboxId, id: FolderId): Promise<Folder | undefined>;
  /** Makes exactly these folders the selected ones. */
  setSelected(inboxId: InboxId, ids: readonly FolderId[]): Promise<void>;
  /**
   * Compare-and-set: writes `next` only if the stored version is still `expectedVersion`, and bumps it.
   * Of two syncs racing from the same state, exactly one advances the cursor; the other gets false and
   * must re-read. This is what lets several processes sync without double-applying changes.
   */
  advanceSync(id: FolderId, expectedVersion: number, next: SyncStateUpdate): Promise<boolean>;
  /**
   * Lowers the folder's window to `windowLow` (older mail now indexed below it), whatever the version, and bumps
   * the version: one statement, so a sync that wrote the folder's state meanwhile neither loses the lowering nor,
   * holding the state it read before, raises the window again (its compare-and-set fails). Never raises it, and
   * only while the folder is still the one of `uidValidity`: positions of a folder re-read since (a reset) mean
   * nothing in the new one.
   */
  lowerWindow(id: FolderId, uidValidity: string | null, windowLow: number): Promise<void>;
}
