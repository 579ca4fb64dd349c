import type { AccountId } from '../accounts/account.ts';
import { newSecret, sha256Hex, timingSafeEqualStrings } from '../../lib/secret-token.ts';

/**
 * The rule every approval redeemed by code follows — a send and an unsubscribe request alike (DESIGN.md §4): the
 * code is shown once and only its SHA-256 is kept; a wrong code is counted and the approval locks at the limit; a
 * right code redeems only a `pending`, unexpired approval. The checks run in one order for both, here: nothing about
 * an approval but that it is locked is told before its code matched.
 */
export interface CodeApproval {
  readonly id: string;
  readonly codeHash: string;
  readonly status: string;
  readonly expiresAt: Date;
  /** Why an approval ended as it did, when it says (a send whose outcome is unknown says why it is). */
  readonly error: string | null;
}

/** What the check needs of a store of approvals. */
export interface CodeApprovalReader<T extends CodeApproval> {
  /** Scoped by account: another account's id is not found. */
  get(accountId: AccountId, id: string): Promise<T | undefined>;
  /**
   * Counts a wrong code; at `lockAfter` wrong codes a pending approval becomes `locked`, and a locked one counts no
   * more (racing wrong codes end as they would one after another). Returns the count, `lockAfter` once locked.
   */
  recordFailure(id: string, lockAfter: number): Promise<number>;
}

export type ApprovalCheck<T extends CodeApproval> =
  | { readonly ok: true; readonly approval: T }
  | { readonly ok: false; readonly reason: 'not_found' | 'locked' | 'expired' }
  | { readonly ok: false; readonly reason: 'wrong_code'; readonly attemptsLeft: number }
  | {
      readonly ok: false;
      readonly reason: 'used';
      readonly status: T['status'];
      readonly error: string | null;
    };

/** Approvals the person's Waiting page shows at once, newest first: sends and unsubscribe requests alike. */
export const WAITING_SHOWN = 50;

/**
 * The newest `WAITING_SHOWN` approvals a store lists (asked for one more), and whether more wait behind them: a day can
 * bring more than the page shows (decision 0126).
 */
export async function newestWaiting<T>(
  list: (limit: number) => Promise<T[]>,
): Promise<{ items: T[]; more: boolean }> {
  const rows = await list(WAITING_SHOWN + 1);
  return { items: rows.slice(0, WAITING_SHOWN), more: rows.length > WAITING_SHOWN };
}

/** A new approval code (24 characters, handed out once) and the hash stored in its place. */
export function newApprovalCode(): { code: string; codeHash: string } {
  const code = newSecret('', 24);
  return { code, codeHash: sha256Hex(code) };
}

/**
 * The approval `id` names, if `code` redeems it now. An id not of the approval's shape is not looked up. The caller
 * still claims the approval (one conditional update) before acting: of racing callers that all pass here, one does.
 */
export async function checkApprovalCode<T extends CodeApproval>(
  store: CodeApprovalReader<T>,
  accountId: AccountId,
  request: { id: string; code: string },
  rule: { idShape: RegExp; maxWrongCodes: number; now: Date },
): Promise<ApprovalCheck<T>> {
  const approval = rule.idShape.test(request.id) ? await store.get(accountId, request.id) : undefined;
  if (approval === undefined) return { ok: false, reason: 'not_found' };
  if (approval.status === 'locked') return { ok: false, reason: 'locked' };
  if (!timingSafeEqualStrings(sha256Hex(request.code), approval.codeHash)) {
    const attempts = await store.recordFailure(approval.id, rule.maxWrongCodes);
    return { ok: false, reason: 'wrong_code', attemptsLeft: Math.max(0, rule.maxWrongCodes - attempts) };
  }
  if (approval.status !== 'pending')
    return { ok: false, reason: 'used', status: approval.status, error: approval.error };
  if (approval.expiresAt <= rule.now) return { ok: false, reason: 'expired' };
  return { ok: true, approval };
}

/**
 * The approval `id` names, for the person confirming it in the app: signed in, so no code — the rest of the rule
 * holds (an id of the approval's shape, of this account, still `pending` — a locked one too stays refused — and
 * unexpired). As with a code, the caller still claims it before acting.
 */
export async function checkApprovalInApp<T extends CodeApproval>(
  store: Pick<CodeApprovalReader<T>, 'get'>,
  accountId: AccountId,
  id: string,
  rule: { idShape: RegExp; now: Date },
): Promise<Exclude<ApprovalCheck<T>, { reason: 'locked' | 'wrong_code' }>> {
  const approval = rule.idShape.test(id) ? await store.get(accountId, id) : undefined;
  if (approval === undefined) return { ok: false, reason: 'not_found' };
  if (approval.status !== 'pending')
    return { ok: false, reason: 'used', status: approval.status, error: approval.error };
  if (approval.expiresAt <= rule.now) return { ok: false, reason: 'expired' };
  return { ok: true, approval };
}
