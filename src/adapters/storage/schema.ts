import type { Generated } from 'kysely';

// Row shapes shared by both dialects. Times are epoch milliseconds (bigint on PostgreSQL, integer on SQLite);
// booleans are 0/1 integers and lists are JSON text, so one set of queries runs unchanged on both.

export interface AccountsTable {
  id: string;
  email: string;
  plan: string;
  trial_ends_at: number | null;
  payment_state: string;
  created_at: number;
  updated_at: number;
  password_hash: string | null;
}

export interface InboxesTable {
  id: string;
  account_id: string;
  label: string;
  provider: string;
  email: string;
  imap_host: string | null;
  imap_port: number | null;
  imap_user: string | null;
  smtp_host: string | null;
  smtp_port: number | null;
  is_demo: number;
  paused: number;
  connection_status: string;
  last_error: string | null;
  sender_name: string | null;
  credential_set_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface FoldersTable {
  id: string;
  inbox_id: string;
  path: string;
  name: string;
  canonical: string | null;
  selected: number;
  uid_validity: string | null;
  uid_next: number | null;
  highest_modseq: string | null;
  cursor: string | null;
  window_low: number | null;
  synced_at: number | null;
  sync_version: Generated<number>;
}

export interface MessagesTable {
  id: string;
  inbox_id: string;
  folder_id: string;
  provider_ref: string;
  position: number;
  thread_id: string | null;
  internet_message_id: string | null;
  subject: string;
  from_address: string;
  from_name: string;
  to_json: string;
  snippet: string;
  /** Lower-cased subject + sender + snippet, for the synced-window substring filter. */
  search_text: string;
  date: number;
  unread: number;
  starred: number;
  labels_json: string;
  has_attachments: number;
  size: number;
  list_id: string | null;
  list_unsubscribe: string | null;
  list_unsubscribe_post: number;
}

/** Kept by triggers on `messages` (migration 0018): never written by the stores. */
export interface FolderCountsTable {
  folder_id: string;
  messages: number;
  unread: number;
}

export interface SettingsTable {
  scope: string;
  key: string;
  value_json: string;
  updated_at: number;
}

export interface SessionsTable {
  id_hash: string;
  account_id: string;
  created_at: number;
  expires_at: number;
  last_seen_at: number;
  user_agent: string | null;
}

export interface InvitationsTable {
  id_hash: string;
  email: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  hash: string;
  last4: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  /** Decision 0141: null for every power, else their names separated by spaces. */
  powers: string | null;
  /** Decision 0142: null for every inbox, else their ids separated by spaces. */
  inboxes: string | null;
}

export interface AuditLogTable {
  id: Generated<number>;
  at: number;
  account_id: string;
  credential_kind: string;
  credential_id: string;
  client_id: string | null;
  tool: string;
  inbox_id: string | null;
  outcome: string;
  undo_id: string | null;
  duration_ms: number;
}

export interface OAuthClientsTable {
  client_id: string;
  kind: string;
  client_name: string;
  client_uri: string | null;
  redirect_uris_json: string;
  token_endpoint_auth_method: string;
  secret_hash: string | null;
  created_at: number;
}

export interface OAuthRequestsTable {
  id: string;
  client_id: string;
  redirect_uri: string;
  state: string | null;
  code_challenge: string;
  scope: string;
  resource: string;
  created_at: number;
  expires_at: number;
}

export interface OAuthGrantsTable {
  id: string;
  account_id: string;
  client_id: string;
  scope: string;
  resource: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  powers: string | null;
  inboxes: string | null;
}

export interface OAuthCodesTable {
  code_hash: string;
  client_id: string;
  account_id: string;
  redirect_uri: string;
  code_challenge: string;
  scope: string;
  resource: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  grant_id: string | null;
  replayed_at: number | null;
  powers: string | null;
  inboxes: string | null;
}

export interface OAuthTokensTable {
  hash: string;
  kind: string;
  grant_id: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  /** An access token's first use (decision 0028); null for refresh tokens and unused ones. */
  used_at: Generated<number | null>;
}

export interface InboxCredentialsTable {
  inbox_id: string;
  sealed: string;
  updated_at: number;
}

export interface SecretLinksTable {
  id_hash: string;
  purpose: string;
  account_id: string;
  inbox_id: string | null;
  payload_json: string;
  attempts: Generated<number>;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface DemoMessagesTable {
  inbox_id: string;
  folder_path: string;
  uid: number;
  flags_json: string;
  internal_date: number;
  doc_json: string;
  modseq: number;
}

export interface DemoFoldersTable {
  inbox_id: string;
  path: string;
  canonical: string | null;
  uid_validity: string;
  uid_next: number;
  modseq: number;
}

export interface UndoRecordsTable {
  id: string;
  account_id: string;
  action: string;
  entries_json: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface LeasesTable {
  inbox_id: string;
  holder: string;
  agent_label: string;
  started_at: number;
  expires_at: number;
}

export interface InboxChangeCountsTable {
  inbox_id: string;
  count: number;
}

export interface TriagePassesTable {
  id: string;
  inbox_id: string;
  agent_label: string;
  holder: string;
  started_at: number;
  ended_at: number;
  summary: string | null;
}

export interface VipsTable {
  account_id: string;
  kind: string;
  value: string;
  created_at: number;
}

export interface DraftsTable {
  id: string;
  account_id: string;
  inbox_id: string;
  to_text: string;
  subject: string;
  body: string;
  thread_id: string | null;
  in_reply_to: string | null;
  references_json: string;
  internet_message_id: string;
  folder_path: string | null;
  provider_draft_id: string | null;
  version: number;
  status: string;
  created_at: number;
  updated_at: number;
  /** Set while the mailbox copy is being written, cleared once it is recorded (decision 0031). */
  copy_pending_at: number | null;
}

export interface PendingSendsTable {
  id: string;
  account_id: string;
  draft_id: string;
  draft_version: number;
  code_hash: string;
  attempts: Generated<number>;
  status: string;
  created_at: number;
  expires_at: number;
  claimed_at: number | null;
  finished_at: number | null;
  error: string | null;
  requested_by: string | null;
}

export interface CardCodesTable {
  hash: string;
  account_id: string;
  draft_id: string;
  draft_version: number;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface PendingUnsubscribesTable {
  id: string;
  account_id: string;
  inbox_id: string;
  message_id: string;
  sender_key: string;
  sender_address: string;
  url: string;
  code_hash: string;
  attempts: number;
  status: string;
  created_at: number;
  expires_at: number;
  claimed_at: number | null;
  finished_at: number | null;
  http_status: number | null;
  error: string | null;
  requested_by: string | null;
}

export interface ScreeningsTable {
  id: string;
  account_id: string;
  inbox_id: string;
  message_id: string;
  sender_address: string;
  offered_at: number | null;
  offer_expires_at: number | null;
  verdict: string | null;
  reason: string | null;
  source: string;
  decided_at: number | null;
  resolution: string | null;
  resolved_at: number | null;
  undo_id: string | null;
}

export interface Database {
  accounts: AccountsTable;
  inboxes: InboxesTable;
  folders: FoldersTable;
  folder_counts: FolderCountsTable;
  messages: MessagesTable;
  settings: SettingsTable;
  sessions: SessionsTable;
  invitations: InvitationsTable;
  api_keys: ApiKeysTable;
  audit_log: AuditLogTable;
  oauth_clients: OAuthClientsTable;
  oauth_requests: OAuthRequestsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
  inbox_credentials: InboxCredentialsTable;
  secret_links: SecretLinksTable;
  demo_messages: DemoMessagesTable;
  demo_folders: DemoFoldersTable;
  undo_records: UndoRecordsTable;
  leases: LeasesTable;
  inbox_change_counts: InboxChangeCountsTable;
  triage_passes: TriagePassesTable;
  vips: VipsTable;
  drafts: DraftsTable;
  pending_sends: PendingSendsTable;
  card_codes: CardCodesTable;
  pending_unsubscribes: PendingUnsubscribesTable;
  screenings: ScreeningsTable;
  second_factors: SecondFactorsTable;
  recovery_codes: RecoveryCodesTable;
  sign_in_events: SignInEventsTable;
  passkeys: PasskeysTable;
  passkey_challenges_spent: PasskeyChallengesSpentTable;
}

export interface SecondFactorsTable {
  account_id: string;
  sealed: string;
  last_step: number;
  created_at: number;
}

export interface RecoveryCodesTable {
  account_id: string;
  code_hash: string;
}

export interface SignInEventsTable {
  id: Generated<number>;
  account_id: string;
  at: number;
  kind: string;
  ip: string | null;
  user_agent: string | null;
}

export interface PasskeysTable {
  credential_id: string;
  account_id: string;
  /** COSE, base64url. */
  public_key: string;
  counter: number;
  /** JSON array of strings. */
  transports: string;
  name: string;
  created_at: number;
  last_used_at: number | null;
}

export interface PasskeyChallengesSpentTable {
  hash: string;
  expires_at: number;
}
