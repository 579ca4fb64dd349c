import type { Clock } from '../../lib/clock.ts';
import type { AccountId } from '../accounts/account.ts';
import type { UndoStore } from '../actions/undo-store.ts';
import type { FolderStore } from '../messages/folder-store.ts';
import type { InboxId } from '../inboxes/inbox.ts';
import type { AuditEntry, AuditLog, AuditQuery } from './audit-log.ts';

/** What a recorded change did, as data (the console words it). */
export type ChangeSummary =
  | {
      readonly kind: 'move';
      readonly messages: number;
      /** Folder display names; null when the folder is gone. */
      readonly from: string | null;
      readonly to: string | null;
    }
  | {
      readonly kind: 'flags';
      readonly messages: number;
      readonly added: readonly string[];
      readonly removed: readonly string[];
    };

export interface ActivityRow {
  readonly entry: AuditEntry;
  /** For calls that changed mail (they carry an undo handle). */
  readonly change: ChangeSummary | null;
  /** The handle is live and unused: the person can still undo it. */
  readonly undoable: boolean;
}

/**
 * Settings → Activity: the audit log a page at a time, each change described from its undo record (which folder
 * to which, how many messages) — never message content.
 */
export class ActivityService {
  private readonly deps: { audit: AuditLog; undo: UndoStore; folders: FolderStore; clock: Clock };
  constructor(deps: { audit: AuditLog; undo: UndoStore; folders: FolderStore; clock: Clock }) {
    this.deps = deps;
  }

  async page(accountId: AccountId, q: AuditQuery): Promise<{ rows: ActivityRow[]; total: number }> {
    const { entries, total } = await this.deps.audit.page(accountId, q);
    const now = this.deps.clock.now();
    const names = new Map<string, Map<string, string>>();
    const folderName = async (inboxId: string, folderId: string | null) => {
      if (folderId === null) return null;
      let byId = names.get(inboxId);
      if (byId === undefined) {
        byId = new Map(
          (await this.deps.folders.list(inboxId as InboxId)).map((f) => [f.id as string, f.name]),
        );
        names.set(inboxId, byId);
      }
      return byId.get(folderId) ?? null;
    };
    const rows: ActivityRow[] = [];
    for (const entry of entries) {
      const record =
        entry.undoId === null ? undefined : await this.deps.undo.describe(accountId, entry.undoId);
      const first = record?.entries[0];
      if (record === undefined || first === undefined) {
        rows.push({ entry, change: null, undoable: false });
        continue;
      }
      const change: ChangeSummary =
        first.toFolderId === null
          ? {
              kind: 'flags',
              messages: record.entries.length,
              added: [...new Set(record.entries.flatMap((e) => e.flags?.add ?? []))],
              removed: [...new Set(record.entries.flatMap((e) => e.flags?.remove ?? []))],
            }
          : {
              kind: 'move',
              messages: record.entries.length,
              from: await folderName(first.inboxId, first.fromFolderId),
              to: await folderName(first.inboxId, first.toFolderId),
            };
      rows.push({
        entry,
        change,
        undoable: record.usedAt === null && record.expiresAt.getTime() > now.getTime(),
      });
    }
    return { rows, total };
  }
}
