import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/random.ts';
import { credentialKey, type Principal } from '../auth/principal.ts';
import type { Inbox } from '../inboxes/inbox.ts';
import type { ProfileService } from '../profile/profile-service.ts';
import type { Lease, LeaseStore, TriagePass } from './lease-store.ts';
import { quietUntil } from './quiet-hours.ts';

export const LEASE_TTL_MS = 5 * 60_000;

export type BeginOutcome =
  | { readonly kind: 'started'; readonly lease: Lease; readonly resumed: boolean }
  | { readonly kind: 'not_started'; readonly reason: 'too_soon' | 'quiet_hours'; readonly nextDueAt: Date }
  | { readonly kind: 'held'; readonly lease: Lease };

/**
 * One agent at a time per inbox (DESIGN.md §4): a lease of 5 minutes, extended by heartbeats. Cadence and quiet
 * hours are soft checks that `force` skips (only after the person asked to triage now) — outcomes, not errors.
 */
export class LeaseService {
  private readonly deps: { leases: LeaseStore; profiles: ProfileService; clock: Clock };
  constructor(deps: { leases: LeaseStore; profiles: ProfileService; clock: Clock }) {
    this.deps = deps;
  }

  async begin(principal: Principal, inbox: Inbox, agentLabel: string, force: boolean): Promise<BeginOutcome> {
    const now = this.deps.clock.now();
    const holder = credentialKey(principal);
    const current = await this.deps.leases.current(inbox.id, now);
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

  /** Takes (or re-takes) the inbox's lease from now for one lease length. */
  private acquire(
    inbox: Inbox,
    holder: string,
    agentLabel: string,
    now: Date,
  ): Promise<{ acquired: boolean; lease: Lease }> {
    return this.deps.leases.acquire(
      {
        inboxId: inbox.id,
        holder,
        agentLabel,
        startedAt: now,
        expiresAt: new Date(now.getTime() + LEASE_TTL_MS),
      },
      now,
    );
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
      this.deps.leases.current(inbox.id, this.deps.clock.now()),
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
    const lease = await this.deps.leases.current(inboxId, this.deps.clock.now());
    if (lease === undefined) return { mine: false, other: undefined };
    return lease.holder === credentialKey(principal)
      ? { mine: true, other: undefined }
      : { mine: false, other: lease };
  }
}
