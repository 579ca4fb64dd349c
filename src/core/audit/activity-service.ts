import type { Clock } from '../../lib/clock.ts';
import type { AccountId } from '../accounts/account.ts';
import type { UndoRecord, UndoStore } from '../actions/undo-store.ts';
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

/** A change made for the person whose call never reported back (`ActivityService.interrupted`). */
export interface InterruptedChange {
  readonly undoId: string;
  readonly at: Date;
  readonly change: ChangeSummary;
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
    const describe = this.describer();
    const rows: ActivityRow[] = [];
    for (const entry of entries) {
      const record =
        entry.undoId === null ? undefined : await this.deps.undo.describe(accountId, entry.undoId);
      const change = record === undefined ? null : await describe(record);
      rows.push({
        entry,
        change,
        undoable: change !== null && record?.usedAt === null && record.expiresAt.getTime() > now.getTime(),
      });
    }
    return { rows, total };
  }

  /**
   * Changes whose call never reported back — the service stopped between writing the undo handle and answering —
   * so no audit entry names their handle and the agent never saw it. The person can still undo them. Handles
   * younger than a minute are left out: their call may still be running.
   */
  async interrupted(accountId: AccountId): Promise<InterruptedChange[]> {
    const now = this.deps.clock.now();
    const records = await this.deps.undo.interrupted(accountId, now, new Date(now.getTime() - 60_000));
    const describe = this.describer();
    const changes: InterruptedChange[] = [];
    for (const record of records) {
      const change = await describe(record);
      if (change !== null) changes.push({ undoId: record.id, at: record.createdAt, change });
    }
    return changes;
  }

  /** Describes undo records in words-ready data, reading each inbox's folder names once. */
  private describer(): (record: UndoRecord) => Promise<ChangeSummary | null> {
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
    return async (record) => {
      const first = record.entries[0];
      if (first === undefined) return null;
      return first.toFolderId === null
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
    };
  }
}
