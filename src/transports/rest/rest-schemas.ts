import { AGENT_POWERS } from '../../core/auth/agent-powers.ts';
import * as z from 'zod';
import { DRAFT_VIEW, INBOX_VIEW } from '../http/view-schemas.ts';

/**
 * What `/api` reads and answers, as zod schemas: the routes parse with them and the OpenAPI document
 * (`/api/openapi.json`) is generated from them, so the description cannot drift from the code.
 */

/** Every error on `/api`: `{ error, error_description }` (contract §7). */
export const ERROR_BODY = z.object({
  error: z.string().describe('A code from the table in contract §7, e.g. invalid_api_key.'),
  error_description: z.string().describe('What went wrong and what to do, in words.'),
});

/** Contract §4.1. `to` must hold something besides spaces; the draft service checks the rest. */
export const DRAFT_REQUEST = z.object({
  to: z
    .string()
    .refine((s) => s.trim() !== '', 'must not be empty')
    .describe('Recipient address or addresses.'),
  subject: z.string(),
  text: z.string().describe('Plain text body.'),
  threadId: z.string().optional().describe('Thread to reply in, from a fetched message.'),
});

export const INBOX_LIST = z.object({ inboxes: z.array(INBOX_VIEW) });

export { DRAFT_VIEW };

/** Inbox ids as a key's request names them (decision 0142): null for every inbox. */
const INBOX_IDS = z.array(z.string().max(100)).max(100).nullable();

export const KEY_VIEW = z.object({
  id: z.string(),
  name: z.string(),
  last4: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  powers: z
    .array(z.enum(AGENT_POWERS))
    .describe(
      'What the key’s agent may do beyond reading (every agent may read): tidy, screen, draft, unsubscribe, setup.',
    ),
  inboxes: z
    .array(z.string())
    .nullable()
    .describe(
      'The ids of the inboxes the key’s agent may reach; null for every inbox, those added later too (decision 0142).',
    ),
});

export const KEY_LIST = z.object({ keys: z.array(KEY_VIEW) });

export const KEY_CREATE_REQUEST = z.object({
  name: z.string(),
  powers: z
    .array(z.enum(AGENT_POWERS))
    .optional()
    .describe('What the key’s agent may do beyond reading; every power when left out (decision 0141).'),
  inboxes: INBOX_IDS.optional().describe(
    'The ids of the inboxes the key’s agent may reach; every inbox, those added later too, when left out or null ' +
      '(decision 0142).',
  ),
});

export const KEY_CHANGE_REQUEST = z
  .object({
    powers: z
      .array(z.enum(AGENT_POWERS))
      .optional()
      .describe(
        'Everything the key’s agent may do beyond reading from its next request on ([] for reading only); unchanged ' +
          'when left out.',
      ),
    inboxes: INBOX_IDS.optional().describe(
      'The ids of the inboxes the key’s agent may reach from its next request on ([] for none); null for every ' +
        'inbox, those added later too; unchanged when left out (decision 0142).',
    ),
  })
  .refine((b) => b.powers !== undefined || b.inboxes !== undefined, { message: 'powers or inboxes' });

/** The key itself is in `key`, shown this once. */
export const KEY_CREATED = KEY_VIEW.extend({ key: z.string().describe('itk_…: shown once, store it now.') });
