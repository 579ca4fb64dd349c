import type { ToolDefinition } from '../tool-definition.ts';
import { actOnMessages } from './act-on-messages.ts';
import { addInbox } from './add-inbox.ts';
import { archiveMessages } from './archive-messages.ts';
import { createDraft } from './create-draft.ts';
import { applyLabels } from './apply-labels.ts';
import { removeLabels } from './remove-labels.ts';
import { starMessages } from './star-messages.ts';
import { markAsSpam } from './mark-as-spam.ts';
import { getTriageProfile } from './get-triage-profile.ts';
import { updateTriageProfile } from './update-triage-profile.ts';
import { sendDraft } from './send-draft.ts';
import { setSendEnabled } from './set-send-enabled.ts';
import { showDraft } from './show-draft.ts';
import { showInbox } from './show-inbox.ts';
import { sendDraftFromCard } from './send-draft-from-card.ts';
import { updateDraftFromCard } from './update-draft-from-card.ts';
import { trashMessage } from './trash-message.ts';
import { beginTriage } from './begin-triage.ts';
import { endTriage } from './end-triage.ts';
import { getTriageActivity } from './get-triage-activity.ts';
import { heartbeatTriage } from './heartbeat-triage.ts';
import { undoAction } from './undo-action.ts';
import { confirmUnsubscribe } from './confirm-unsubscribe.ts';
import { proposeUnsubscribe } from './propose-unsubscribe.ts';
import { reviewUnsubscribes } from './review-unsubscribes.ts';
import { confirmScreening } from './confirm-screening.ts';
import { reportScreened } from './report-screened.ts';
import { rescueScreened } from './rescue-screened.ts';
import { reviewScreened } from './review-screened.ts';
import { screenJunk } from './screen-junk.ts';
import { showScreened } from './show-screened.ts';
import { addVip } from './add-vip.ts';
import { listVips } from './list-vips.ts';
import { removeVip } from './remove-vip.ts';
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
  showInbox,
  getMessage,
  searchMailbox,
  loadOlderMessages,
  getAttachment,
  listLabels,
  trashMessage,
  markAsSpam,
  archiveMessages,
  actOnMessages,
  applyLabels,
  removeLabels,
  starMessages,
  undoAction,
  beginTriage,
  heartbeatTriage,
  endTriage,
  getTriageActivity,
  listVips,
  addVip,
  removeVip,
  getTriageProfile,
  updateTriageProfile,
  createDraft,
  showDraft,
  setSendEnabled,
  sendDraft,
  updateDraftFromCard,
  sendDraftFromCard,
  reviewUnsubscribes,
  proposeUnsubscribe,
  confirmUnsubscribe,
  screenJunk,
  confirmScreening,
  reviewScreened,
  showScreened,
  rescueScreened,
  reportScreened,
];
