import type { AccountStore } from '../../core/accounts/account-store.ts';
import type { InboxStore } from '../../core/inboxes/inbox-store.ts';
import type { FolderStore } from '../../core/messages/folder-store.ts';
import type { MessageStore } from '../../core/messages/message-store.ts';
import type { SettingsStore } from '../../core/settings/settings-store.ts';
import type { SessionStore } from '../../core/sessions/session-store.ts';
import type { InvitationStore } from '../../core/accounts/invitation-store.ts';
import type { ApiKeyStore } from '../../core/api-keys/api-key-store.ts';
import { KyselySessionStore } from './kysely-session-store.ts';
import { KyselyAuditLog } from './kysely-audit-log.ts';
import { BatchedAuditLog } from './batched-audit-log.ts';
import { KyselyGrantStore } from './kysely-grant-store.ts';
import { KyselyOAuthClientStore, KyselyOAuthRequestStore } from './kysely-oauth-client-store.ts';
import type { ClientStore } from '../../oauth/client/client.ts';
import type { RequestStore } from '../../oauth/request/authorization-request.ts';
import type { GrantStore } from '../../oauth/token/grant.ts';
import type { UndoStore } from '../../core/actions/undo-store.ts';
import type { LeaseStore } from '../../core/leases/lease-store.ts';
import type { VipStore } from '../../core/vips/vip-store.ts';
import type { CardCodeStore } from '../../core/drafts/draft-cards.ts';
import type { DraftStore, PendingSendStore } from '../../core/drafts/draft-store.ts';
import { KyselyLeaseStore, KyselyUndoStore, KyselyVipStore } from './kysely-triage-stores.ts';
import { KyselyCardCodeStore, KyselyDraftStore, KyselyPendingSendStore } from './kysely-draft-stores.ts';
import { KyselyMailingListIndex, KyselyPendingUnsubscribeStore } from './kysely-unsubscribe-stores.ts';
import { KyselyScreeningStore } from './kysely-screening-store.ts';
import type { ScreeningStore } from '../../core/screening/screening-store.ts';
import type { PendingUnsubscribeStore } from '../../core/unsubscribe/pending-unsubscribe-store.ts';
import type { MailingListIndex } from '../../core/unsubscribe/mailing-list-index.ts';
import type { AuditLog } from '../../core/audit/audit-log.ts';
import type { SignInHistory } from '../../core/sessions/sign-in-history.ts';
import { KyselySignInHistory } from './kysely-sign-in-history.ts';
import type { PasskeyStore } from '../../core/sessions/passkeys.ts';
import { KyselyPasskeyStore } from './kysely-passkey-store.ts';
import { KyselyInvitationStore } from './kysely-invitation-store.ts';
import { KyselyApiKeyStore } from './kysely-api-key-store.ts';
import type { Db } from './database.ts';
import { KyselyAccountStore } from './kysely-account-store.ts';
import { KyselyFolderStore } from './kysely-folder-store.ts';
import { KyselyInboxStore } from './kysely-inbox-store.ts';
import { KyselyMessageStore } from './kysely-message-store.ts';
import { KyselySettingsStore } from './kysely-settings-store.ts';
import { KyselyChangeCounter } from './kysely-change-counter.ts';
import type { ChangeCounter } from '../../core/sync/change-counter.ts';

export interface Stores {
  readonly accounts: AccountStore;
  readonly inboxes: InboxStore;
  readonly folders: FolderStore;
  readonly messages: MessageStore;
  readonly settings: SettingsStore;
  readonly sessions: SessionStore;
  readonly invitations: InvitationStore;
  readonly apiKeys: ApiKeyStore;
  readonly audit: AuditLog;
  readonly oauthClients: ClientStore;
  readonly oauthRequests: RequestStore;
  readonly grants: GrantStore;
  readonly undo: UndoStore;
  readonly leases: LeaseStore;
  readonly vips: VipStore;
  readonly drafts: DraftStore;
  readonly pendingSends: PendingSendStore;
  readonly cardCodes: CardCodeStore;
  readonly pendingUnsubscribes: PendingUnsubscribeStore;
  readonly screenings: ScreeningStore;
  readonly mailingLists: MailingListIndex;
  readonly changeCounts: ChangeCounter;
  readonly signInHistory: SignInHistory;
  readonly passkeys: PasskeyStore;
}

/** One implementation per port; the dialect only changes column types in the migrations. */
export function createStores(db: Db): Stores {
  const messages = new KyselyMessageStore(db);
  return {
    accounts: new KyselyAccountStore(db),
    inboxes: new KyselyInboxStore(db, messages),
    folders: new KyselyFolderStore(db),
    messages,
    settings: new KyselySettingsStore(db),
    sessions: new KyselySessionStore(db),
    invitations: new KyselyInvitationStore(db),
    apiKeys: new KyselyApiKeyStore(db),
    audit: new BatchedAuditLog(new KyselyAuditLog(db)),
    oauthClients: new KyselyOAuthClientStore(db),
    oauthRequests: new KyselyOAuthRequestStore(db),
    grants: new KyselyGrantStore(db),
    undo: new KyselyUndoStore(db),
    leases: new KyselyLeaseStore(db),
    vips: new KyselyVipStore(db),
    drafts: new KyselyDraftStore(db),
    pendingSends: new KyselyPendingSendStore(db),
    cardCodes: new KyselyCardCodeStore(db),
    pendingUnsubscribes: new KyselyPendingUnsubscribeStore(db),
    screenings: new KyselyScreeningStore(db),
    mailingLists: new KyselyMailingListIndex(db),
    changeCounts: new KyselyChangeCounter(db),
    signInHistory: new KyselySignInHistory(db),
    passkeys: new KyselyPasskeyStore(db),
  };
}

export {
  openDatabase,
  openPostgres,
  openSqlite,
  type Db,
  type DbTarget,
  type Dialect,
  type PostgresDb,
  type SqliteDb,
} from './database.ts';
export { migrateToLatest, pendingMigrations, MigrationError } from './migrator.ts';
export { sessionsShared, SharedSessionsError } from './pg-session-check.ts';
export { connectionAllowance } from './pg-connection-allowance.ts';
export { markAsCopy, takeUpRestoredCopy } from './restored-copy.ts';
export {
  copySqliteToPostgres,
  SchemaMismatchError,
  TargetNotEmptyError,
  type CopiedTable,
} from './copy-to-postgres.ts';
export { copyPostgresToSqlite } from './copy-to-sqlite.ts';
export {
  waitForDatabase,
  DatabaseUnavailableError,
  DatabaseWaitStopped,
  type WaitOptions,
} from './wait-for-database.ts';
