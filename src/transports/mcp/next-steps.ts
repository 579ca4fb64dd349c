import type { NextStep } from '../../core/next-step.ts';

/** The core's next steps (core/next-step.ts) in an agent's words: the MCP tool to call, and how. */
const WORDS: Readonly<Record<NextStep, string>> = {
  pick_listed_inbox: 'Call list_inboxes for valid ids.',
  connect_inbox:
    'Start the connection (start_imap_secret_capture, start_google_oauth or start_microsoft_oauth) and let the person finish it.',
  sync_first: 'Call sync_inbox first.',
  pick_listed_folder: 'Call list_folders for the names.',
  select_folder: 'Add it with sync_inbox { folders: [...] } first.',
  use_listed_message_ids: 'Use ids from list_messages or search_mailbox.',
  use_part_from_message: 'Use a partId from get_message.',
  use_thread_from_message: 'Use the threadId get_message returned.',
  ask_person_to_enable_sending: 'Only the person can turn it on (set_send_enabled, when they ask).',
  ask_person_to_approve_send:
    'Show the person the draft (to, subject, text), ask whether to send it, and only after they say yes call again with humanApprovedInChat: true.',
  use_offered_approval: 'Use the pendingSendId and approvalCode create_draft returned; never guess.',
};

/** A core failure's message with its next step, for the agent. */
export const agentMessage = (e: {
  readonly message: string;
  readonly next?: NextStep | undefined;
}): string => (e.next === undefined ? e.message : `${e.message} ${WORDS[e.next]}`);
