import type { AccountId } from '../../core/accounts/account.ts';
import type { AuditEntry, AuditLog, AuditQuery } from '../../core/audit/audit-log.ts';

/**
 * Group commit for the audit log: entries recorded in the same tick are written in one multi-row INSERT, and
 * each `record()` resolves only when its row is committed — so a tool's answer never precedes its audit row,
 * but 64 concurrent calls cost one commit instead of 64.
 */
export class BatchedAuditLog implements AuditLog {
  private readonly inner: AuditLog & { recordMany(entries: readonly AuditEntry[]): Promise<void> };
  private queue: { entry: AuditEntry; done: (e?: unknown) => void }[] = [];
  private scheduled = false;

  constructor(inner: AuditLog & { recordMany(entries: readonly AuditEntry[]): Promise<void> }) {
    this.inner = inner;
  }

  record(entry: AuditEntry): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({
        entry,
        done: (e) =>
          e === undefined ? resolve() : reject(e instanceof Error ? e : new Error('audit write failed')),
      });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  page(accountId: AccountId, q: AuditQuery): Promise<{ entries: AuditEntry[]; total: number }> {
    return this.inner.page(accountId, q);
  }

  recent(accountId: AccountId, limit: number): Promise<AuditEntry[]> {
    return this.inner.recent(accountId, limit);
  }

  deleteBefore(before: Date): Promise<number> {
    return this.inner.deleteBefore(before);
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    this.scheduled = false;
    try {
      await this.inner.recordMany(batch.map((b) => b.entry));
      for (const b of batch) b.done();
    } catch (e) {
      for (const b of batch) b.done(e);
    }
  }
}
