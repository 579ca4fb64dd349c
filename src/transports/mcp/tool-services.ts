import type { ActionService } from '../../core/actions/action-service.ts';
import type { UndoService } from '../../core/actions/undo-service.ts';
import type { DraftCardService } from '../../core/drafts/draft-cards.ts';
import type { DraftService } from '../../core/drafts/draft-service.ts';
import type { InboxService } from '../../core/inboxes/inbox-service.ts';
import type { LeaseService } from '../../core/leases/lease-service.ts';
import type { ProfileService } from '../../core/profile/profile-service.ts';
import type { ReadService } from '../../core/reading/read-service.ts';
import type { SendService } from '../../core/sending/send-service.ts';
import type { SyncService } from '../../core/sync/sync-service.ts';
import type { UnsubscribeService } from '../../core/unsubscribe/unsubscribe-service.ts';
import type { ScreeningService } from '../../core/screening/screening-service.ts';
import type { VipService } from '../../core/vips/vip-service.ts';

/** The core use-cases tools may call. Tools never see stores, SQL or provider clients. */
export interface ToolServices {
  readonly inboxes: InboxService;
  readonly sync: SyncService;
  readonly read: ReadService;
  readonly actions: ActionService;
  readonly undo: UndoService;
  readonly leases: LeaseService;
  readonly vips: VipService;
  readonly profiles: ProfileService;
  readonly drafts: DraftService;
  readonly cards: DraftCardService;
  readonly sending: SendService;
  readonly unsubscribe: UnsubscribeService;
  readonly screening: ScreeningService;
}
