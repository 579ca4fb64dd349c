import type { Clock } from '../../lib/clock.ts';
import type * as z from 'zod';
import { err, ok, type Result } from '../../lib/result.ts';
import type { AccountId } from '../accounts/account.ts';
import type { Reach } from '../auth/inbox-reach.ts';
import type { JsonValue, SettingsStore } from '../settings/settings-store.ts';
import {
  changeScreeningList,
  DEFAULT_PROFILE,
  deepMerge,
  effectivePrefs,
  loosening,
  patchWithin,
  withoutOwn,
  type OwnPart,
  screeningEntryKey,
  TRIAGE_PROFILE,
  type ScreeningList,
  type TriagePrefs,
  type TriageProfile,
} from './triage-profile.ts';

const KEY = 'triageProfile';

export interface ProfileProblem {
  readonly code: 'invalid_arguments';
  readonly message: string;
  readonly issues: readonly { path: string; message: string }[];
}

/**
 * A change an agent may not make on its own (decision 0102): turning off in-app confirmation is the person's alone
 * (they chose it so that an agent's word in chat would not count), and a VIP leaves only by a removal the person
 * agreed to (VipService.remove), not by a patch that leaves it out.
 */
export type ProfileRefusal =
  | ProfileProblem
  | { readonly code: 'not_allowed'; readonly message: string; readonly needs: 'every_inbox' }
  | { readonly code: 'human_approval_required'; readonly message: string; readonly scopes: readonly string[] }
  | {
      readonly code: 'vip_confirmation_required';
      readonly message: string;
      readonly entries: readonly string[];
    };

/** Who changes the profile: the person on their console, or an agent with a tool. */
export type ProfileEditor = 'person' | 'agent';

/** The account's triage profile (contract §2, §4.6): stored whole, changed by validated deep-merge patches. */
export class ProfileService {
  private readonly deps: { settings: SettingsStore; clock: Clock };
  constructor(deps: { settings: SettingsStore; clock: Clock }) {
    this.deps = deps;
  }

  async get(accountId: AccountId): Promise<TriageProfile> {
    return readable(await this.deps.settings.get(accountId, KEY));
  }

  async effective(accountId: AccountId, inboxId: string): Promise<TriagePrefs> {
    return effectivePrefs(await this.get(accountId), inboxId);
  }

  /**
   * Applies a patch; unknown fields and invalid values are refused with their paths, nothing is saved then. An
   * agent's patch that would loosen a safeguard of the person's (`loosening`) is refused whole, also nothing saved;
   * so is one that reaches past the agent's inboxes (`patchWithin`: the defaults, another inbox's override).
   */
  async update(
    who: Reach,
    patch: unknown,
    by: ProfileEditor,
  ): Promise<Result<TriageProfile, ProfileRefusal>> {
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
      return err({
        code: 'invalid_arguments',
        message: 'patch must be an object with only the fields to change.',
        issues: [],
      });
    }
    if (!patchWithin(patch, who.inboxes))
      return err({
        code: 'not_allowed',
        message:
          'This agent reaches only some inboxes: it may change those inboxes’ overrides (inboxes.<inboxId>), not the defaults every inbox follows.',
        needs: 'every_inbox',
      });
    return this.amend(
      who.accountId,
      (current) => deepMerge(current, patch),
      by === 'agent' ? agentMay : undefined,
    );
  }

  /**
   * The person's own switch for confirming every send and unsubscribe in the app, for every inbox at once: an
   * inbox's own setting is dropped, so that on and off mean everywhere (the console; agents may only turn it on).
   */
  async setInAppConfirmation(accountId: AccountId, on: boolean): Promise<void> {
    const saved = await this.amend(accountId, (p) => ({
      defaults: { ...p.defaults, sending: { requireInAppConfirmation: on } },
      inboxes: Object.fromEntries(
        Object.entries(p.inboxes).map(([id, { sending: _, ...rest }]) => [id, rest]),
      ),
    }));
    if (!saved.ok) throw new Error(`in-app confirmation refused by the profile: ${saved.error.message}`);
  }

  /**
   * The person takes an entry off a screening list, every copy of it (decision 0116), matched as the rules compare
   * entries (`PAYROLL@evil.example` is `payroll@evil.example`). False when no copy held it: nothing changed.
   */
  async removeScreeningEntry(accountId: AccountId, list: ScreeningList, entry: string): Promise<boolean> {
    const key = screeningEntryKey(list, entry);
    let found = false;
    await this.amend(accountId, (p) => {
      found = false;
      return changeScreeningList(p, list, (entries) => {
        const kept = entries.filter((e) => screeningEntryKey(list, e) !== key);
        found ||= kept.length < entries.length;
        return kept;
      });
    });
    return found;
  }

  /** The person lets an inbox follow the defaults again in its triage settings or its screening lists (`withoutOwn`). */
  async useDefaults(accountId: AccountId, inboxId: string, part: OwnPart): Promise<void> {
    if ((await this.get(accountId)).inboxes[inboxId] === undefined) return;
    const saved = await this.amend(accountId, (p) => withoutOwn(p, inboxId, part));
    // Taking settings out of a profile that parsed cannot make it invalid; say so loudly if it ever does.
    if (!saved.ok) throw new Error(`an inbox's own ${part} refused by the profile: ${saved.error.message}`);
  }

  /** Drops a removed inbox's override: its own lists and settings would otherwise outlive it (decision 0117). */
  async forgetInbox(accountId: AccountId, inboxId: string): Promise<void> {
    if ((await this.get(accountId)).inboxes[inboxId] === undefined) return;
    await this.amend(accountId, (p) => ({
      defaults: p.defaults,
      inboxes: Object.fromEntries(Object.entries(p.inboxes).filter(([id]) => id !== inboxId)),
    }));
  }

  /**
   * Changes the profile by a function of its current value, atomically: the write is a compare-and-set on what
   * was read, retried on a race, so two changes at once (a rescue and a report, on two nodes) both land.
   */
  async amend(
    accountId: AccountId,
    change: (current: TriageProfile) => unknown,
    allowed?: (before: TriageProfile, after: TriageProfile) => ProfileRefusal | undefined,
  ): Promise<Result<TriageProfile, ProfileRefusal>> {
    for (;;) {
      const stored = await this.deps.settings.get(accountId, KEY);
      const current = readable(stored);
      const parsed = TRIAGE_PROFILE.safeParse(change(current));
      if (!parsed.success) return err(problem(parsed.error.issues));
      const refused = allowed?.(current, parsed.data);
      if (refused !== undefined) return err(refused);
      const next = parsed.data as unknown as JsonValue;
      if (await this.deps.settings.replace(accountId, KEY, stored, next, this.deps.clock.now()))
        return ok(parsed.data);
    }
  }
}

/**
 * A stored profile as this version reads it: missing parts come from the defaults, and a part that no longer fits (a
 * field a later version dropped, a value it checks more strictly, an entry of a list) is left out alone — never the
 * whole profile, which would turn the person's in-app confirmation off and drop their VIPs and blocklist without a
 * word, and lose them for good at the next change.
 */
export function readable(stored: JsonValue | undefined): TriageProfile {
  let candidate = deepMerge(DEFAULT_PROFILE, stored ?? {});
  // Each round removes every part the schema named; a removal cannot add a problem, so a few rounds are enough.
  for (let round = 0; round < 5; round++) {
    const parsed = TRIAGE_PROFILE.safeParse(candidate);
    if (parsed.success) return parsed.data;
    candidate = withoutMisfits(candidate, parsed.error.issues);
  }
  return DEFAULT_PROFILE;
}

const GONE = Symbol('gone');

/** The candidate without the parts the issues name: an unknown key or a misfit deleted, a list entry taken out. */
function withoutMisfits(candidate: unknown, issues: readonly z.core.$ZodIssue[]): unknown {
  const copy = structuredClone(candidate);
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const node = valueAt(copy, issue.path);
      if (typeof node === 'object' && node !== null)
        for (const k of issue.keys) Reflect.deleteProperty(node, k);
      continue;
    }
    const parent = valueAt(copy, issue.path.slice(0, -1));
    const key = issue.path.at(-1);
    if (typeof parent !== 'object' || parent === null || key === undefined) return DEFAULT_PROFILE;
    // A part the defaults have goes back to its default; anything else (an inbox's own setting) goes.
    const fallback = valueAt(DEFAULT_PROFILE, issue.path);
    if (Array.isArray(parent) && typeof key === 'number') parent[key] = GONE;
    else if (fallback !== undefined)
      (parent as Record<PropertyKey, unknown>)[key] = structuredClone(fallback);
    else Reflect.deleteProperty(parent, key);
  }
  return prune(copy);
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

/** Takes out the list entries marked gone. */
function prune(node: unknown): unknown {
  if (Array.isArray(node)) return node.filter((x) => x !== GONE).map(prune);
  if (typeof node === 'object' && node !== null)
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, prune(v)]));
  return node;
}

function problem(all: readonly z.core.$ZodIssue[]): ProfileProblem {
  const issues = all.slice(0, 10).map((i) => ({
    path: i.path.join('.') || '(patch)',
    message:
      i.code === 'unrecognized_keys'
        ? `unknown field${i.keys.length === 1 ? '' : 's'}: ${i.keys.join(', ')}`
        : i.message,
  }));
  return {
    code: 'invalid_arguments',
    message: `The patch does not fit the profile: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    issues,
  };
}

/** What an agent's change may not do: the first safeguard it would loosen, said so the agent can tell the person. */
function agentMay(before: TriageProfile, after: TriageProfile): ProfileRefusal | undefined {
  const { inAppConfirmationOff, vipPeopleDropped } = loosening(before, after);
  if (inAppConfirmationOff.length > 0)
    return {
      code: 'human_approval_required',
      message:
        'Only the person can turn off confirming sends and unsubscribes in the app (sending.requireInAppConfirmation): they chose it so that approval in chat would not be enough. Nothing was changed; they can turn it off themselves in Settings → Sending, VIPs and triage.',
      scopes: inAppConfirmationOff,
    };
  if (vipPeopleDropped.length > 0)
    return {
      code: 'vip_confirmation_required',
      message:
        'This change would take VIPs off vip.people. Nothing was changed: a VIP leaves only by a removal the person agreed to.',
      entries: vipPeopleDropped,
    };
  return undefined;
}
