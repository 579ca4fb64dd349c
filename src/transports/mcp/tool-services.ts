import type { AuditLog } from '../../core/audit/audit-log.ts';
import type { InboxService } from '../../core/inboxes/inbox-service.ts';
import type { ReadService } from '../../core/reading/read-service.ts';
import type { SyncService } from '../../core/sync/sync-service.ts';

/** The core use-cases tools may call. Tools never see stores, SQL or provider clients. */
export interface ToolServices {
  readonly inboxes: InboxService;
  readonly sync: SyncService;
  readonly read: ReadService;
  readonly audit: AuditLog;
}
