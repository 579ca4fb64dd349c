import { err, ok, type Result } from '../../lib/result.ts';
import type { InboxId } from '../inboxes/inbox.ts';
import type { CanonicalFolder, FolderId } from '../messages/folder.ts';
import type { FolderStore } from '../messages/folder-store.ts';
import type { MessageStore } from '../messages/message-store.ts';

export interface FolderStatus {
  readonly id: string;
  readonly name: string;
  readonly canonical: CanonicalFolder | null;
  readonly selected: boolean;
  readonly syncedAt: Date | null;
  /** Messages of the folder in the index (the synced window). */
  readonly messages: number;
}

/** Where each inbox's sync stands, for the person's Inboxes page; and which folders it syncs. */
export class InboxStatusService {
  private readonly deps: { folders: FolderStore; messages: MessageStore };
  constructor(deps: { folders: FolderStore; messages: MessageStore }) {
    this.deps = deps;
  }

  /** The inbox's folders (selected first), with the last sync and the messages indexed. The caller owns the inbox. */
  async folders(inboxId: InboxId): Promise<FolderStatus[]> {
    const out: FolderStatus[] = [];
    for (const f of await this.deps.folders.list(inboxId)) {
      const messages = f.selected
        ? (await this.deps.messages.list(inboxId, { folderId: f.id, limit: 1, offset: 0 })).total
        : 0;
      out.push({
        id: f.id,
        name: f.name,
        canonical: f.canonical,
        selected: f.selected,
        syncedAt: f.sync.syncedAt,
        messages,
      });
    }
    return out.sort((a, b) => Number(b.selected) - Number(a.selected) || a.name.localeCompare(b.name));
  }

  /** Makes exactly these folders the synced ones (at least one, all of this inbox). The caller owns the inbox. */
  async select(
    inboxId: InboxId,
    ids: readonly string[],
  ): Promise<Result<void, { code: 'invalid_arguments' }>> {
    const known = new Set((await this.deps.folders.list(inboxId)).map((f) => f.id as string));
    const chosen = [...new Set(ids)];
    if (chosen.length === 0 || chosen.some((id) => !known.has(id))) return err({ code: 'invalid_arguments' });
    await this.deps.folders.setSelected(inboxId, chosen as FolderId[]);
    return ok(undefined);
  }
}
