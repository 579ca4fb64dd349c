import type { PasskeyService } from '../../core/sessions/passkey-service.ts';
import type { AuditLog } from '../../core/audit/audit-log.ts';
import type { ActivityService } from '../../core/audit/activity-service.ts';
import type { UndoService } from '../../core/actions/undo-service.ts';
import type { SendService } from '../../core/sending/send-service.ts';
import type { VipService } from '../../core/vips/vip-service.ts';
import type { UnsubscribeService } from '../../core/unsubscribe/unsubscribe-service.ts';
import type { ScreeningService } from '../../core/screening/screening-service.ts';
import type { ProfileService } from '../../core/profile/profile-service.ts';
import type { InboxStatusService } from '../../core/sync/inbox-status.ts';
import type { Inbox } from '../../core/inboxes/inbox.ts';
import type { AccountService } from '../../core/accounts/account-service.ts';
import type { ApiKeyService } from '../../core/api-keys/api-key-service.ts';
import type { RateLimiter } from '../../core/rate-limits/rate-limiter.ts';
import type { SessionService } from '../../core/sessions/session-service.ts';
import type { Aead } from '../../lib/aead.ts';
import type { OAuthProvider } from '../../oauth/oauth-provider.ts';
import type { InboxService } from '../../core/inboxes/inbox-service.ts';
import type { Clock } from '../../lib/clock.ts';
import type { CookiePolicy } from './cookies.ts';
import type { SecondFactorService } from '../../core/sessions/second-factor-service.ts';
import type { RestoredNotice } from '../../core/settings/restored-copy.ts';

export interface WebDeps {
  readonly accounts: AccountService;
  readonly sessions: SessionService;
  readonly secondFactor: SecondFactorService;
  readonly passkeys: PasskeyService;
  /** A QR code of `text` as an SVG element (the authenticator app's setup link). */
  readonly qrSvg: (text: string) => string;
  readonly apiKeys: ApiKeyService;
  readonly audit: AuditLog;
  /** Settings → Activity: the audit log with each change described, and the person's Undo. */
  readonly activity: ActivityService;
  readonly undo: UndoService;
  /** The person's own switches: sending, VIPs, the triage profile (Settings → Sending, VIPs and triage). */
  readonly sending: Pick<SendService, 'isEnabled' | 'setEnabled' | 'waiting' | 'sendFromApp' | 'discard'>;
  readonly vips: VipService;
  readonly unsubscribe: Pick<UnsubscribeService, 'waiting' | 'confirmFromApp' | 'discard'>;
  /** Screened: the person's own review, Rescue and Report. */
  readonly screening: Pick<ScreeningService, 'review' | 'rescue' | 'report'>;
  readonly profiles: ProfileService;
  /** The Inboxes page: each inbox's folders and sync state, and a sync started after the folders change. */
  readonly inboxStatus: InboxStatusService;
  readonly syncSoon: (inbox: Inbox) => void;
  readonly oauth: OAuthProvider;
  readonly inboxes: InboxService;
  readonly limiter: RateLimiter;
  readonly clock: Clock;
  readonly cookies: CookiePolicy;
  /** Seals one-time values (a new API key) into a short-lived cookie for the page that shows them. */
  readonly flash: Aead;
  readonly baseUrl: string;
  readonly openSignup: boolean;
  readonly trustProxy: boolean;
  readonly sessionTtlSeconds: number;
  /** A restore of the database in the last 30 days, which the Settings page tells of (decision 0137). */
  readonly restored: () => Promise<RestoredNotice | undefined>;
}
