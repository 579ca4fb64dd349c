import * as z from 'zod';
import { CONNECTION_STATUSES, PROVIDERS } from '../../core/inboxes/inbox.ts';

/**
 * The records both surfaces return (contract §2), declared once: MCP results embed them (output-shapes.ts) and the
 * REST API answers with them (its OpenAPI document is generated from the same schemas).
 */

/** `InboxView` (core/inboxes/inbox-view.ts). */
export const INBOX_VIEW = z.object({
  id: z.string(),
  label: z.string(),
  provider: z.enum(PROVIDERS),
  email: z.string(),
  imapHost: z.string().optional(),
  imapPort: z.number().optional(),
  imapUser: z.string().optional(),
  smtpHost: z.string().optional(),
  smtpPort: z.number().optional(),
  connectionStatus: z.enum([...CONNECTION_STATUSES, 'paused']),
  needsReconnect: z.boolean(),
  paused: z.boolean(),
  isDemo: z.boolean(),
});

/** `DraftView` (core/drafts/draft-view.ts): the draft object of contract §2. */
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
