import type { CanonicalFolder } from '../messages/folder.ts';
import type { NextStep } from '../next-step.ts';
/** Changes agents ask for by name, and the two junk screening makes (into Screened, and back to the inbox). */
export const ACTIONS = [
  'archive',
  'trash',
  'spam',
  'star',
  'unstar',
  'label',
  'unlabel',
  'screen',
  'rescue',
] as const;
export type ActionKind = (typeof ACTIONS)[number];

/** The actions that move mail, and the canonical folder each moves it to. */
export const MOVES: Readonly<Partial<Record<ActionKind, CanonicalFolder>>> = {
  archive: 'archive',
  trash: 'trash',
  spam: 'spam',
  screen: 'screened',
  rescue: 'inbox',
};

/** Moves that take mail out of the inbox: a VIP's mail is protected from these (skipped in bulk, confirmed singly). */
export const PROTECTED_MOVES: ReadonlySet<ActionKind> = new Set(['archive', 'trash', 'spam', 'screen']);

export interface Target {
  readonly inboxId: string;
  readonly messageId: string;
}

export type SkipReason = 'vip' | 'not_found' | 'already_there';

export interface ActOutcome {
  readonly changed: readonly (Target & { readonly subject: string })[];
  readonly skipped: readonly (Target & { readonly reason: SkipReason; readonly from?: string })[];
  readonly undoId: string | null;
  /** The caller changed mail without holding the inbox's lease (allowed for single changes; a pass takes it). */
  readonly withoutLease: boolean;
  /** A sender-wide action stopped at its limit (500 messages): more from that sender remain; call again. */
  readonly more: boolean;
}

export type ActError =
  | {
      readonly code:
        | 'inbox_not_found'
        | 'inbox_paused'
        | 'not_connected'
        | 'needs_reconnect'
        | 'invalid_arguments'
        | 'not_supported'
        | 'message_not_found';
      readonly message: string;
      readonly next?: NextStep;
    }
  | {
      readonly code: 'lease_held';
      readonly message: string;
      readonly holder: string;
      readonly expiresAt: Date;
    }
  | { readonly code: 'vip_confirmation_required'; readonly message: string; readonly from: string }
  | {
      /**
       * The change needs more new labels than the inbox can gain today (decision 0146): `remaining` of its `perDay`
       * are left, and the window ends in `retryAfterSeconds` — absent when `asked` is more than a whole day takes, so
       * that no wait would let this change through (decision 0153).
       */
      readonly code: 'rate_limited';
      readonly message: string;
      readonly perDay: number;
      /** The labels this change would make. */
      readonly asked: number;
      readonly remaining: number;
      readonly retryAfterSeconds?: number;
      /** What was changed in other inboxes before this one, still undoable with this handle. */
      readonly partial?: { readonly changed: ActOutcome['changed']; readonly undoId: string | null };
    }
  | {
      readonly code: 'provider_error';
      readonly message: string;
      /** What was changed before the failure, still undoable with this handle. */
      readonly partial?: { readonly changed: ActOutcome['changed']; readonly undoId: string | null };
      /** The folder the messages were to move to is no longer in the mailbox (deleted elsewhere). */
      readonly folderGone?: true;
    };

/** The IMAP flag that is the star; every other flag an action sets or clears is a label. */
export const FLAGGED = '\\Flagged';

/**
 * A message's labels and star after adding and removing IMAP flags (`\Flagged` is the star, the rest are labels).
 * Kept labels keep their order; new ones follow in the order given.
 */
export function applyFlagChange(
  m: { readonly labels: readonly string[]; readonly starred: boolean },
  add: readonly string[],
  remove: readonly string[],
): { labels: string[]; starred: boolean } {
  return {
    labels: m.labels
      .filter((l) => !remove.includes(l))
      .concat(add.filter((f) => f !== FLAGGED && !m.labels.includes(f))),
    starred: add.includes(FLAGGED) ? true : remove.includes(FLAGGED) ? false : m.starred,
  };
}
