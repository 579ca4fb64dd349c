import type { Clock } from '../../lib/clock.ts';
import type * as z from 'zod';
import { err, ok, type Result } from '../../lib/result.ts';
import type { AccountId } from '../accounts/account.ts';
import type { JsonValue, SettingsStore } from '../settings/settings-store.ts';
import {
  DEFAULT_PROFILE,
  deepMerge,
  effectivePrefs,
  TRIAGE_PROFILE,
  type TriagePrefs,
  type TriageProfile,
} from './triage-profile.ts';

const KEY = 'triageProfile';

export interface ProfileProblem {
  readonly message: string;
  readonly issues: readonly { path: string; message: string }[];
}

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

  /** Applies a patch; unknown fields and invalid values are refused with their paths, nothing is saved then. */
  async update(accountId: AccountId, patch: unknown): Promise<Result<TriageProfile, ProfileProblem>> {
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
      return err({ message: 'patch must be an object with only the fields to change.', issues: [] });
    }
    return this.amend(accountId, (current) => deepMerge(current, patch));
  }

  /**
   * Changes the profile by a function of its current value, atomically: the write is a compare-and-set on what
   * was read, retried on a race, so two changes at once (a rescue and a report, on two nodes) both land.
   */
  async amend(
    accountId: AccountId,
    change: (current: TriageProfile) => unknown,
  ): Promise<Result<TriageProfile, ProfileProblem>> {
    for (;;) {
      const stored = await this.deps.settings.get(accountId, KEY);
      const parsed = TRIAGE_PROFILE.safeParse(change(readable(stored)));
      if (!parsed.success) return err(problem(parsed.error.issues));
      const next = parsed.data as unknown as JsonValue;
      if (await this.deps.settings.replace(accountId, KEY, stored, next, this.deps.clock.now()))
        return ok(parsed.data);
    }
  }
}

/** A stored profile from an older schema still parses: missing parts come from the defaults. */
function readable(stored: JsonValue | undefined): TriageProfile {
  const parsed = TRIAGE_PROFILE.safeParse(deepMerge(DEFAULT_PROFILE, stored ?? {}));
  return parsed.success ? parsed.data : DEFAULT_PROFILE;
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
    message: `The patch does not fit the profile: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
    issues,
  };
}
