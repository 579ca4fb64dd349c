import * as z from 'zod';
import { ACTIONS } from '../../core/actions/action-types.ts';
import { CONNECTION_STATUSES, PROVIDERS } from '../../core/inboxes/inbox.ts';
import { TOOL_ERROR_CODES } from './tool-error.ts';

/**
 * The shapes tool results share, declared once (decision 0015). Output schemas describe what tools return, so
 * they carry no limits (a cut result may shorten any string or array) and no defaults.
 */

/** Added by `fitToLimit` (tool-result.ts) to any result cut to the size limit. */
export const TRUNCATED = z.object({ note: z.string(), fields: z.array(z.string()) });

const COMMON = {
  /** Words for the person, safe to show as they are. */
  sayToHuman: z.string().optional(),
  /** Next steps for the agent; never shown to the person. */
  agentOnly: z.array(z.string()).optional(),
  truncated: TRUNCATED.optional(),
};

/** A success payload: the tool's own members and the common ones (sayToHuman, agentOnly, truncated). */
export const payload = <T extends z.ZodRawShape>(shape: T) => z.object({ ...shape, ...COMMON });

/** Spread into a payload whose tool reads an inbox: results from the demo inbox say so (`demoNote`). */
export const DEMO = { isDemo: z.literal(true).optional() };

/** A tool failure (tool-error.ts), the `structuredContent` of every `isError` result. */
export const TOOL_ERROR = z.object({
  error: z.enum(TOOL_ERROR_CODES),
  message: z.string(),
  sayToHuman: z.string().optional(),
  retryAfterSeconds: z.number().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});

export const ADDRESS = z.object({ address: z.string(), name: z.string() });

/** `InboxView` (core/inboxes/inbox-view.ts). */
export const INBOX_VIEW = z.object({
  id: z.string(),
  label: z.string(),
  provider: z.enum(PROVIDERS),
  email: z.string(),
  imapHost: z.string().optional(),
  imapPort: z.number().optional(),
  imapUser: z.string().optional(),
  connectionStatus: z.enum([...CONNECTION_STATUSES, 'paused']),
  needsReconnect: z.boolean(),
  paused: z.boolean(),
  isDemo: z.boolean(),
});

/** `MessagePreview` (core/reading/read-service.ts): no body; subject, names and snippet are the sender's words. */
export const MESSAGE_PREVIEW = z.object({
  messageId: z.string(),
  folder: z.string(),
  threadId: z.string().nullable(),
  subject: z.string(),
  from: ADDRESS,
  date: z.string(),
  snippet: z.string(),
  unread: z.boolean(),
  starred: z.boolean(),
  labels: z.array(z.string()),
  hasAttachments: z.boolean(),
  isList: z.boolean(),
});

/** `DraftView` (core/drafts/draft-view.ts). */
export const DRAFT_VIEW = z.object({
  id: z.string(),
  to: z.string(),
  subject: z.string(),
  text: z.string(),
  provider: z.string(),
  providerDraftId: z.string().nullable(),
  threadId: z.string().nullable(),
  isDemo: z.boolean(),
  createdAt: z.string(),
});

const TARGET = { inboxId: z.string(), messageId: z.string() };

/** Every mail change (action-results.ts): what changed, what was skipped and why, and the undo handle. */
export const ACT_RESULT = payload({
  action: z.enum(ACTIONS),
  changed: z.array(z.object({ ...TARGET, subject: z.string() })),
  skipped: z.array(
    z.object({
      ...TARGET,
      reason: z.enum(['vip', 'not_found', 'already_there']),
      from: z.string().optional(),
    }),
  ),
  /** For undo_action; null when nothing changed. */
  undoId: z.string().nullable(),
  more: z.literal(true).optional(),
});
