import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/random.ts';
import type { AccountId } from '../accounts/account.ts';
import { CHANGES_MAIL } from '../auth/agent-powers.ts';
import {
  credentialKey,
  credentialOfKey,
  type CredentialStillWorks,
  type Principal,
} from '../auth/principal.ts';
import type { Inbox } from '../inboxes/inbox.ts';
import type { ProfileService } from '../profile/profile-service.ts';
import type { Lease, LeaseStore, TriagePass } from './lease-store.ts';
import { quietUntil } from './quiet-hours.ts';

export const LEASE_TTL_MS = 5 * 60_000;

export type BeginOutcome =
  | { readonly kind: 'started'; readonly lease: Lease; readonly resumed: boolean }
  | { readonly kind: 'not_started'; readonly reason: 'too_soon' | 'quiet_hours'; readonly nextDueAt: Date }
  | { readonly kind: 'held'; readonly lease: Lease };

interface Deps {
  readonly leases: LeaseStore;
  readonly profiles: ProfileService;
  readonly clock: Clock;
  /** Whether the credential holding a lease still works: a lease is worth no more than its holder's (decision 0130). */
  readonly stillWorks: CredentialStillWorks;
}

/**
 * One agent at a time per inbox (DESIGN.md §4): a lease of 5 minutes, extended by heartbeats. Cadence and quiet
 * hours are soft checks that `force` skips (only after the person asked to triage now) — outcomes, not errors.
 *
 * A lease whose credential stops working — the person revoked the key or disconnected the agent, or the account's
 * agents were stopped — ends the moment anyone meets it (decision 0130): it no longer keeps other agents out, nor the
 * person's own Undo, for the rest of its five minutes.
 */
export class LeaseService {
  private readonly deps: Deps;
  constructor(deps: Deps) {
    this.deps = deps;
  }

  async begin(principal: Principal, inbox: Inbox, agentLabel: string, force: boolean): Promise<BeginOutcome> {
    const now = this.deps.clock.now();
    const holder = credentialKey(principal);
    const current = await this.live(inbox.accountId, inbox.id, now, holder);
    const resuming = current !== undefined && current.holder === holder && current.agentLabel === agentLabel;
    if (!force && !resuming) {
      const prefs = await this.deps.profiles.effective(inbox.accountId, inbox.id);
      if (prefs.quietHours !== null) {
        const until = quietUntil(now, prefs.quietHours);
        if (until !== undefined) return { kind: 'not_started', reason: 'quiet_hours', nextDueAt: until };
      }
      const every = prefs.cadence.everyHours;
      const last = await this.deps.leases.lastPass(inbox.id);
      if (every !== null && last !== undefined) {
        const due = new Date(last.endedAt.getTime() + every * 3_600_000);
        if (due > now) return { kind: 'not_started', reason: 'too_soon', nextDueAt: due };
      }
    }
    const { acquired, lease } = await this.acquire(inbox, holder, agentLabel, now);
    return acquired ? { kind: 'started', lease, resumed: resuming } : { kind: 'held', lease };
  }

  /** Extends the caller's lease; re-takes it if it lapsed and nobody else holds it. */
  async heartbeat(
    principal: Principal,
    inbox: Inbox,
    agentLabel: string,
  ): Promise<{ ok: true; lease: Lease } | { ok: false; lease: Lease | undefined }> {
    const now = this.deps.clock.now();
    const holder = credentialKey(principal);
    const extended = await this.deps.leases.extend(
      inbox.id,
      holder,
      agentLabel,
      now,
      new Date(now.getTime() + LEASE_TTL_MS),
    );
    if (extended !== undefined) return { ok: true, lease: extended };
    const retaken = await this.acquire(inbox, holder, agentLabel, now);
    return retaken.acquired ? { ok: true, lease: retaken.lease } : { ok: false, lease: retaken.lease };
  }

  /**
   * Takes (or re-takes) the inbox's lease from now for one lease length; a lease in the way whose credential no
   * longer works is ended first.
   */
  private async acquire(
    inbox: Inbox,
    holder: string,
    agentLabel: string,
    now: Date,
  ): Promise<{ acquired: boolean; lease: Lease }> {
    const candidate = {
      inboxId: inbox.id,
      holder,
      agentLabel,
      startedAt: now,
      expiresAt: new Date(now.getTime() + LEASE_TTL_MS),
    };
    const first = await this.deps.leases.acquire(candidate, now);
    if (first.acquired || first.lease.holder === holder) return first;
    if (await this.holderWorks(inbox.accountId, inbox.id, first.lease)) return first;
    await this.deps.leases.endHeldBy(inbox.id, first.lease.holder, now);
    return this.deps.leases.acquire(candidate, now);
  }

  /**
   * The inbox's live lease, unless its credential no longer works: then it is ended here and there is none. The
   * caller's own (`asking`) needs no check: its credential has just been verified.
   */
  private async live(
    accountId: AccountId,
    inboxId: string,
    now: Date,
    asking?: string,
  ): Promise<Lease | undefined> {
    const lease = await this.deps.leases.current(inboxId, now);
    if (lease === undefined || lease.holder === asking || (await this.holderWorks(accountId, inboxId, lease)))
      return lease;
    await this.deps.leases.endHeldBy(inboxId, lease.holder, now);
    return undefined;
  }

  /**
   * Whether the holder's credential still works, may still change mail (a lease guards changes, 0141), and still
   * reaches the inbox (0142).
   */
  private holderWorks(accountId: AccountId, inboxId: string, lease: Lease): Promise<boolean> {
    const credential = credentialOfKey(lease.holder);
    return credential === undefined
      ? Promise.resolve(false)
      : this.deps.stillWorks(accountId, credential, CHANGES_MAIL, inboxId);
  }

  async end(
    principal: Principal,
    inbox: Inbox,
    agentLabel: string,
    summary: string | null,
  ): Promise<boolean> {
    return this.deps.leases.release(
      inbox.id,
      credentialKey(principal),
      agentLabel,
      this.deps.clock.now(),
      summary,
      newId('pass'),
    );
  }

  async activity(inbox: Inbox): Promise<{ lease: Lease | undefined; lastPass: TriagePass | undefined }> {
    const [lease, lastPass] = await Promise.all([
      this.live(inbox.accountId, inbox.id, this.deps.clock.now()),
      this.deps.leases.lastPass(inbox.id),
    ]);
    return { lease, lastPass };
  }

  /** The live lease of someone else, which forbids this caller to change mail in the inbox. */
  async heldByOther(principal: Principal, inboxId: string): Promise<Lease | undefined> {
    return (await this.standing(principal, inboxId)).other;
  }

  /** Whether this caller holds the inbox's lease, or someone else does. */
  async standing(
    principal: Principal,
    inboxId: string,
  ): Promise<{ mine: boolean; other: Lease | undefined }> {
    const holder = credentialKey(principal);
    const lease = await this.live(principal.accountId, inboxId, this.deps.clock.now(), holder);
    if (lease === undefined) return { mine: false, other: undefined };
    return lease.holder === holder ? { mine: true, other: undefined } : { mine: false, other: lease };
  }
}
