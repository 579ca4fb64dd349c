import { clientNetwork } from '../../lib/ip-address.ts';
import type { AccountId } from '../accounts/account.ts';

/**
 * What happened to a person's way in, as Settings → Signed-in browsers lists it (decision 0091): sign-ins and how
 * they were made, passwords and codes refused, and every change to the password, the second factor and the browsers
 * signed in. A person who sees a wrong code after a right password knows their password is out.
 */
export type SignInEventKind =
  | 'signed_in'
  | 'signed_in_with_code'
  | 'signed_in_with_recovery_code'
  | 'signed_in_with_passkey'
  | 'wrong_password'
  /** The password was right; the code from the app was not. */
  | 'wrong_code'
  | 'password_changed'
  /** Set through the operator's reset link. */
  | 'password_reset'
  | 'two_step_on'
  | 'two_step_off'
  /** Turned off by the operator (`inbox-triage account two-step-off`). */
  | 'two_step_off_by_operator'
  | 'recovery_codes_replaced'
  | 'others_signed_out'
  | 'passkey_added'
  | 'passkey_removed'
  /** API keys: each is a way in for an agent. */
  | 'api_key_created'
  | 'api_key_revoked'
  | 'every_api_key_revoked'
  /** An agent connected through OAuth, by the person's consent. */
  | 'agent_connected'
  | 'agent_disconnected'
  | 'every_agent_disconnected'
  /** What an API key or a connected agent may do, changed (decision 0141). */
  | 'agent_powers_changed';

export interface SignInEvent {
  readonly at: Date;
  readonly accountId: AccountId;
  readonly kind: SignInEventKind;
  /** The client's address as the service saw it (a proxy's, unless TRUST_PROXY); null for the operator's command. */
  readonly ip: string | null;
  /** What the browser said it is, as a session keeps it (200 characters at most). */
  readonly userAgent: string | null;
}

/** An account's sign-in history. Never a password, a code or a token: only that one was tried, and from where. */
export interface SignInHistory {
  record(event: SignInEvent): Promise<void>;
  /** The newest `limit` events, newest first. */
  recent(accountId: AccountId, limit: number): Promise<SignInEvent[]>;
  /** Removes every account's events from before `before` (the hourly sweep); how many. */
  deleteBefore(before: Date): Promise<number>;
}

/** Where a sign-in, a password check or a change to the way in comes from. */
export interface Client {
  readonly ip: string;
  readonly userAgent: string | null;
  /** The browser's device token, if it has one (decision 0025). */
  readonly device?: string | undefined;
}

/** The event for this account, now, from this client (the operator's command has none). */
export function eventOf(
  accountId: AccountId,
  kind: SignInEventKind,
  at: Date,
  client: Client | 'operator',
): SignInEvent {
  return client === 'operator'
    ? { at, accountId, kind, ip: null, userAgent: null }
    : { at, accountId, kind, ip: client.ip, userAgent: client.userAgent };
}

/** Events that show the one who typed a wrong code held the right one moments later: a slip, not a stranger. */
const CODE_PROVEN: ReadonlySet<SignInEventKind> = new Set([
  'signed_in_with_code',
  'signed_in_with_recovery_code',
  'two_step_off',
  'recovery_codes_replaced',
]);
/** How soon after a wrong code the right one must come, from the same address and browser, to explain it. */
const SLIP_MS = 10 * 60_000;

/**
 * The latest wrong code after a right password that nothing explains, from a history newest first: not followed
 * within ten minutes, from the same address and browser, by the code proven (the person's own slip), and not followed
 * by a new password (the person has acted on it). Someone else may know the password.
 */
export function passwordMayBeKnown(history: readonly SignInEvent[]): SignInEvent | undefined {
  let pending: SignInEvent[] = [];
  for (const e of [...history].reverse()) {
    if (e.kind === 'wrong_code') pending.push(e);
    else if (e.kind === 'password_changed' || e.kind === 'password_reset') pending = [];
    else if (CODE_PROVEN.has(e.kind))
      pending = pending.filter(
        (w) =>
          !samePlace(w.ip, e.ip) || w.userAgent !== e.userAgent || e.at.getTime() - w.at.getTime() > SLIP_MS,
      );
  }
  return pending.at(-1);
}

/**
 * Two addresses of one place: the same network (decision 0111), since an IPv6 host changes the low 64 bits of its
 * address on its own (privacy addresses) between a slip and the sign-in that makes it good.
 */
function samePlace(a: string | null, b: string | null): boolean {
  return a !== null && b !== null && clientNetwork(a) === clientNetwork(b);
}

/** The ways a sign-in is recorded. */
const SIGN_INS: ReadonlySet<SignInEventKind> = new Set([
  'signed_in',
  'signed_in_with_code',
  'signed_in_with_recovery_code',
  'signed_in_with_passkey',
]);

/** How long after its sign-in is recorded a session may be opened and still be that sign-in's. */
const SESSION_OPENS_MS = 60_000;

/** What was tried against the account between the person's previous sign-in and this one. */
export interface AttemptsBefore {
  /** The previous sign-in; null when it is older than the history read. */
  readonly since: Date | null;
  readonly wrongPasswords: number;
  /** The right password with a wrong code. */
  readonly wrongCodes: number;
  /** Where they came from, the most frequent first (the operator's command has no address, and never fails). */
  readonly addresses: readonly string[];
}

/**
 * The wrong passwords and codes since the previous sign-in, from a history newest first, for the session opened at
 * `openedAt` — undefined when there were none, or when that session began without a sign-in (set-up, an invitation,
 * a reset link). The person's own slips on the way in (from the same address and browser as this sign-in, in the ten
 * minutes before it) are not counted: what is left was tried by someone, or somewhere, else.
 */
export function attemptsBefore(history: readonly SignInEvent[], openedAt: Date): AttemptsBefore | undefined {
  const at = history.findIndex((e) => SIGN_INS.has(e.kind) && e.at.getTime() <= openedAt.getTime());
  const current = history[at];
  // Recorded the moment before the session is opened; a sign-in long before it opened another session.
  if (current === undefined || openedAt.getTime() - current.at.getTime() > SESSION_OPENS_MS) return undefined;
  let since: Date | null = null;
  let wrongPasswords = 0;
  let wrongCodes = 0;
  const from = new Map<string, number>();
  for (const e of history.slice(at + 1)) {
    if (SIGN_INS.has(e.kind)) {
      since = e.at;
      break;
    }
    if (e.kind !== 'wrong_password' && e.kind !== 'wrong_code') continue;
    const slip =
      samePlace(e.ip, current.ip) &&
      e.userAgent === current.userAgent &&
      current.at.getTime() - e.at.getTime() <= SLIP_MS;
    if (slip) continue;
    if (e.kind === 'wrong_password') wrongPasswords++;
    else wrongCodes++;
    if (e.ip !== null) from.set(e.ip, (from.get(e.ip) ?? 0) + 1);
  }
  if (wrongPasswords + wrongCodes === 0) return undefined;
  const addresses = [...from].sort((a, b) => b[1] - a[1]).map(([ip]) => ip);
  return { since, wrongPasswords, wrongCodes, addresses };
}

/** How long the history goes back. */
export const SIGN_IN_HISTORY_DAYS = 90;
