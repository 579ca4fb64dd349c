import type { Hono, MiddlewareHandler } from 'hono';
import type { DraftError, DraftService } from '../../core/drafts/draft-service.ts';
import { draftView } from '../../core/drafts/draft-view.ts';
import type { InboxService } from '../../core/inboxes/inbox-service.ts';
import type { AgentEnv } from '../http/agent-gate.ts';
import { allows } from '../../core/auth/agent-powers.ts';
import { jsonError } from '../http/json-error.ts';
import { notAllowed } from './rest-auth.ts';
import { DRAFT_REQUEST } from './rest-schemas.ts';

/** Larger than any valid draft (text ≤ 200,000 characters of up to 4 UTF-8 bytes each, plus headers). */
const MAX_BODY_BYTES = 1_000_000;

/**
 * `POST /api/inboxes/{id}/draft` (contract §4.1, errors §7): writes a draft, never sends. Missing fields are
 * `invalid_request`; a draft the service refuses (a line break in To or Subject, an invalid address) is
 * `draft_failed` with the reason. Nothing is written to the mailbox unless every check passed.
 */
export function registerDraftRoute(
  app: Hono<AgentEnv>,
  deps: { drafts: DraftService; inboxes: InboxService },
  audited: MiddlewareHandler<AgentEnv>,
): void {
  app.post('/api/inboxes/:id/draft', audited, async (c) => {
    // Refused before the body is read, as create_draft is on MCP: the person has not let this key write drafts.
    if (!allows(c.get('principal').powers, 'draft')) return notAllowed('draft');
    const type = c.req.header('content-type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      return jsonError(400, 'invalid_request', 'Send the draft as JSON with Content-Type: application/json.');
    }
    const bytes = await readLimited(c.req.raw, MAX_BODY_BYTES);
    if (bytes === undefined) return tooLarge();
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch {
      return jsonError(400, 'invalid_request', 'The body is not valid UTF-8 JSON.');
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return jsonError(400, 'invalid_request', 'The body must be a JSON object with to, subject and text.');
    }
    const parsed = DRAFT_REQUEST.safeParse(body);
    if (!parsed.success) {
      const fields = [...new Set(parsed.error.issues.map((i) => String(i.path[0] ?? '')))];
      const missing = ['to', 'subject', 'text'].filter((k) => fields.includes(k));
      if (missing.length > 0)
        return jsonError(
          400,
          'invalid_request',
          `Missing or not a string: ${missing.join(', ')}. to, subject and text are required.`,
        );
      return jsonError(400, 'invalid_request', 'threadId must be a string from a fetched message.');
    }
    const principal = c.get('principal');
    const r = await deps.drafts.create(principal, c.req.param('id'), parsed.data);
    if (!r.ok) return draftError(r.error);
    const inbox = await deps.inboxes.owned(principal, r.value.inboxId);
    if (!inbox.ok) return jsonError(404, 'inbox_not_found', 'The inbox was removed.');
    return c.json(draftView(r.value, inbox.value), 201);
  });
}

/** Past the limit, this much more is read and dropped so the client can still read the 413; then we hang up. */
const DRAIN_BYTES = 4_000_000;

/**
 * The body, or undefined when it is larger than `max`. The limit holds while the body streams in, with or without a
 * Content-Length: nothing beyond `max` bytes is ever kept in memory.
 */
async function readLimited(req: Request, max: number): Promise<Uint8Array | undefined> {
  if (Number(req.headers.get('content-length') ?? '0') > max) return undefined;
  if (req.body === null) return new Uint8Array();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total <= max) chunks.push(value);
    else if (total > max + DRAIN_BYTES) {
      await reader.cancel();
      break;
    }
  }
  if (total > max) return undefined;
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

function tooLarge(): Response {
  return jsonError(413, 'request_too_large', `The body is larger than ${String(MAX_BODY_BYTES)} bytes.`);
}

function draftError(e: DraftError): Response {
  switch (e.code) {
    case 'invalid_draft':
      return jsonError(
        400,
        'draft_failed',
        // REST words its own next step (decision 0014): no MCP tool to point at here.
        e.next === 'use_thread_from_message'
          ? `${e.message} Use the threadId of a message in this inbox.`
          : e.message,
      );
    case 'rate_limited':
      // Contract §7: any route, too many requests. Retry-After says when the inbox takes a draft again.
      return jsonError(429, 'rate_limited', e.message, { 'Retry-After': String(e.retryAfterSeconds) });
    case 'provider_error':
      // Contract §7 has one code for a refused draft, with status 400; the description says the mailbox refused.
      return jsonError(400, 'draft_failed', e.message);
    case 'inbox_not_found':
      return jsonError(
        404,
        'inbox_not_found',
        'No inbox with this id on this account. GET /api/inboxes lists them.',
      );
    case 'inbox_paused':
      return jsonError(
        409,
        'inbox_paused',
        'The person paused this inbox; they can resume it on the Inboxes page.',
      );
    case 'not_connected':
    case 'needs_reconnect':
      return jsonError(
        409,
        'not_connected',
        'The inbox has no working credential; the person connects it on the Inboxes page first.',
      );
    default:
      return jsonError(400, 'invalid_request', e.message);
  }
}
