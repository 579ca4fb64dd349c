import { INSTANCE_SCOPE, type SettingsStore } from './settings-store.ts';

/**
 * Set in a copy of the database, never in the database itself: `inbox-triage backup` writes it into the copy it
 * makes, `inbox-triage after-restore` into a database restored by other means (decision 0137). Its value is when the
 * copy was made (an ISO time), or null when that is not known.
 */
export const COPY_MARK_SETTING = 'copy_made_at';
/** The mark's value: when the copy was made, or null when that is not known. */
export function copyMark(madeAt: Date | null): string {
  return JSON.stringify(madeAt === null ? null : madeAt.toISOString());
}

/** What the person is told after a restore: `{ copyMadeAt: ISO | null, restoredAt: ISO }`. */
export const RESTORED_SETTING = 'restored_from_copy';
/** How long the person's Settings page says the service was restored. */
export const RESTORED_NOTICE_DAYS = 30;

/**
 * What taking up a restored copy withdrew (decision 0137): what the copy holds as open but may have been used, spent
 * or revoked after the copy was made.
 */
export interface RestoredCopy {
  /** When the copy was made, if known. */
  readonly copyMadeAt: Date | null;
  /** Sends waiting for approval, now `unknown`: they may have been approved and sent after the copy was made. */
  readonly sends: number;
  /** Unsubscribe requests waiting for approval, now `unknown`, for the same reason. */
  readonly unsubscribes: number;
  /** Browser sessions ended: one signed out after the copy was made would be signed in again. */
  readonly sessions: number;
  /** Agents' OAuth sign-ins ended: one the person disconnected after the copy was made would be connected again. */
  readonly signIns: number;
  /** Single-use links and draft-card codes withdrawn: one used after the copy was made would work again. */
  readonly links: number;
}

export interface RestoredNotice {
  readonly copyMadeAt: Date | null;
  readonly restoredAt: Date;
}

/** The restore the person's Settings page tells of: one in the last `RESTORED_NOTICE_DAYS` days. */
export async function restoredNotice(
  settings: SettingsStore,
  now: Date,
): Promise<RestoredNotice | undefined> {
  const v = await settings.get(INSTANCE_SCOPE, RESTORED_SETTING);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const restoredAt = typeof v['restoredAt'] === 'string' ? new Date(v['restoredAt']) : undefined;
  if (restoredAt === undefined || Number.isNaN(restoredAt.getTime())) return undefined;
  if (now.getTime() - restoredAt.getTime() > RESTORED_NOTICE_DAYS * 86_400_000) return undefined;
  const made = typeof v['copyMadeAt'] === 'string' ? new Date(v['copyMadeAt']) : null;
  return { restoredAt, copyMadeAt: made === null || Number.isNaN(made.getTime()) ? null : made };
}

/** What a restore withdrew, as the operator reads it in the log and from `inbox-triage after-restore`. */
export function restoredWords(r: RestoredCopy): string {
  const made = r.copyMadeAt === null ? 'an earlier copy' : `a copy made at ${r.copyMadeAt.toISOString()}`;
  const n = (count: number, one: string, many: string) => `${String(count)} ${count === 1 ? one : many}`;
  return (
    `this database is restored from ${made}: ` +
    `${n(r.sends, 'send', 'sends')} and ${n(r.unsubscribes, 'unsubscribe request', 'unsubscribe requests')} ` +
    'still waiting in it are marked unknown (they may have gone out since; never made again on their own), ' +
    `${n(r.sessions, 'browser session', 'browser sessions')} and ${n(r.signIns, 'agent sign-in', 'agent sign-ins')} ` +
    `ended, ${n(r.links, 'single-use link', 'single-use links')} withdrawn. API keys, passwords, passkeys and ` +
    'two-step sign-in are as they were in the copy: people are told on their Settings page to repeat what they ' +
    'changed since'
  );
}
