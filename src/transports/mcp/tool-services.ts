import type { AuditLog } from '../../core/audit/audit-log.ts';
import type { InboxService } from '../../core/inboxes/inbox-service.ts';

/** The core use-cases tools may call. Tools never see stores, SQL or provider clients. */
export interface ToolServices {
  readonly inboxes: InboxService;
  readonly audit: AuditLog;
}
