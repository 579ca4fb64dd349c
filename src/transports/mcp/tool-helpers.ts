import * as z from 'zod';
import type { InboxError } from '../../core/inboxes/inbox-errors.ts';
import type { Inbox } from '../../core/inboxes/inbox.ts';
import type { ToolContext } from './tool-definition.ts';
import { agentMessage } from './next-steps.ts';
import { toolError } from './tool-error.ts';

/** Contract §8 limits are clamped, not refused: 0 → min, 500 → max, 3.7 → 3. */
export function clamp(value: number | undefined, min: number, max: number, fallback: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(value)));
}

export function fromInboxError(e: InboxError) {
  const sayToHuman =
    e.code === 'inbox_paused'
      ? 'This inbox is paused. You can resume it on the Inboxes page.'
      : e.code === 'not_connected' || e.code === 'needs_reconnect'
        ? 'This inbox needs you to connect it (enter its password or sign in) before I can read it.'
        : undefined;
  return toolError(e.code, agentMessage(e), sayToHuman === undefined ? {} : { sayToHuman });
}

/** The inbox named by a tool argument, checked against the caller's account only (it may be paused or disconnected). */
export async function ownedInbox(ctx: ToolContext, inboxId: string) {
  const r = await ctx.services.inboxes.owned(ctx.principal, inboxId);
  return r.ok
    ? ({ ok: true, inbox: r.value } as const)
    : ({ ok: false, error: fromInboxError(r.error) } as const);
}

/** The inbox named by a tool argument, checked against the caller's account; ready to reach the provider. */
export async function usableInbox(ctx: ToolContext, inboxId: string) {
  const r = await ctx.services.inboxes.usable(ctx.principal, inboxId);
  return r.ok
    ? ({ ok: true, inbox: r.value } as const)
    : ({ ok: false, error: fromInboxError(r.error) } as const);
}

/**
 * `usableInbox`, with the inbox's folders read in the same statement (for tools that page through its mail), and the
 * page of its selected folders (`selectedPageQuery`) or the messages named, when `also` says which.
 */
export async function usableInboxWithFolders(
  ctx: ToolContext,
  inboxId: string,
  also?: Parameters<ToolContext['services']['inboxes']['usableWithFolders']>[2],
) {
  const r = await ctx.services.inboxes.usableWithFolders(ctx.principal, inboxId, also);
  return r.ok
    ? ({ ok: true, ...r.value } as const)
    : ({ ok: false, error: fromInboxError(r.error) } as const);
}

export const demoNote = (inbox: Inbox) => (inbox.isDemo ? { isDemo: true as const } : {});

/** Up to 25 message ids, as the contract's bulk tools take them (§8). */
export const MESSAGE_IDS = z.array(z.string()).min(1).max(25);

/**
 * A label id: a Gmail label id or an IMAP keyword (RFC 3501 atom: no space, parenthesis, brace, quote, backslash,
 * percent, asterisk or bracket, no control character, and not a system flag).
 */
export const LABEL_ID = /^(?!\\)[^\s(){}"\\%*\]\u0000-\u001f\u007f]{1,100}$/;

/**
 * The inboxes a tool's optional `inbox` argument names: one by id or label (case-insensitive), or every inbox of
 * the account that is not paused when it is empty. A named inbox that is paused is refused as usual. `unpaused`: every
 * inbox of the account that is not paused, whichever was named (for a view's inbox tabs).
 */
export async function namedInboxes(ctx: ToolContext, inbox: string | undefined) {
  const all = await ctx.services.inboxes.all(ctx.principal);
  const unpaused = all.filter((i) => !i.paused);
  const wanted = inbox?.trim() ?? '';
  if (wanted === '') return { ok: true, inboxes: unpaused, unpaused } as const;
  const found =
    all.find((i) => i.id === wanted) ?? all.find((i) => i.label.toLowerCase() === wanted.toLowerCase());
  if (found === undefined)
    return {
      ok: false,
      error: toolError(
        'inbox_not_found',
        'No inbox with this id or name on this account. Call list_inboxes.',
      ),
    } as const;
  if (found.paused)
    return {
      ok: false,
      error: fromInboxError({ code: 'inbox_paused', message: 'The person paused this inbox.' }),
    } as const;
  return { ok: true, inboxes: [found], unpaused } as const;
}
