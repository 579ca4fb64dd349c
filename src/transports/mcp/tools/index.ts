import type { ToolDefinition } from '../tool-definition.ts';
import { addInbox } from './add-inbox.ts';
import { getAttachment } from './get-attachment.ts';
import { getConnectionStatus } from './get-connection-status.ts';
import { getMessage } from './get-message.ts';
import { listFolders } from './list-folders.ts';
import { listInboxes } from './list-inboxes.ts';
import { listLabels } from './list-labels.ts';
import { listMessages } from './list-messages.ts';
import { loadOlderMessages } from './load-older-messages.ts';
import { proposeConnection } from './propose-connection.ts';
import { searchMailbox } from './search-mailbox.ts';
import { startImapSecretCapture } from './start-imap-secret-capture.ts';
import { startGoogleOAuth, startMicrosoftOAuth } from './start-provider-oauth.ts';
import { syncInbox } from './sync-inbox.ts';

/** Every MCP tool, one file each. */
export const ALL_TOOLS: readonly ToolDefinition[] = [
  listInboxes,
  proposeConnection,
  addInbox,
  startImapSecretCapture,
  startGoogleOAuth,
  startMicrosoftOAuth,
  getConnectionStatus,
  syncInbox,
  listFolders,
  listMessages,
  getMessage,
  searchMailbox,
  loadOlderMessages,
  getAttachment,
  listLabels,
];
