/**
 * What a caller should do after an expected failure, as data. The core names the step; each transport words it
 * for its audience (MCP: the tool to call; REST and pages: their own words), so the core never speaks one
 * transport's language (decision 0014).
 */
export const NEXT_STEPS = [
  /** Use an inbox id from the account's inbox list. */
  'pick_listed_inbox',
  /** The inbox needs a working credential: the person connects it. */
  'connect_inbox',
  /** Nothing is synced yet: sync the inbox first. */
  'sync_first',
  /** Use a folder name or id from the inbox's folder list. */
  'pick_listed_folder',
  /** The folder exists but is not among the synced ones: select it (and sync) first. */
  'select_folder',
  /** Use a message id from a listing or a search of this inbox. */
  'use_listed_message_ids',
  /** Use an attachment part id from the full message. */
  'use_part_from_message',
  /** Use a thread id from a message of this inbox. */
  'use_thread_from_message',
  /** Only the person can turn sending on; ask them if they want it. */
  'ask_person_to_enable_sending',
  /** Show the person what would be sent and ask; only a clear yes counts. */
  'ask_person_to_approve_send',
  /** Use the pending id and approval code the draft step returned; never guess. */
  'use_offered_approval',
] as const;

export type NextStep = (typeof NEXT_STEPS)[number];
