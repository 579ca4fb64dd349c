export interface Lease {
  readonly inboxId: string;
  /** The credential holding it (`api_key:key_…` / `access_token:grant_…`). */
  readonly holder: string;
  readonly agentLabel: string;
  readonly startedAt: Date;
  readonly expiresAt: Date;
}

export interface TriagePass {
  readonly inboxId: string;
  readonly agentLabel: string;
  readonly startedAt: Date;
  readonly endedAt: Date;
  readonly summary: string | null;
}

/**
 * One lease per inbox. `acquire` is exclusive under concurrency: of racing callers for a free or expired lease
 * exactly one holds it afterwards; the same holder and label re-acquiring just extends it.
 */
export interface LeaseStore {
  acquire(candidate: Lease, now: Date): Promise<{ acquired: boolean; lease: Lease }>;
  /** Extends a live lease of this holder and label; undefined when it is not theirs (or expired). */
  extend(
    inboxId: string,
    holder: string,
    agentLabel: string,
    now: Date,
    expiresAt: Date,
  ): Promise<Lease | undefined>;
  /** Releases this holder's lease and records the pass. */
  release(
    inboxId: string,
    holder: string,
    agentLabel: string,
    now: Date,
    summary: string | null,
    passId: string,
  ): Promise<boolean>;
  /**
   * Ends this holder's live lease now, recording no pass (the holder did not finish one): its credential stopped
   * working. Whether it ended one.
   */
  endHeldBy(inboxId: string, holder: string, now: Date): Promise<boolean>;
  /** The live lease, if any. */
  current(inboxId: string, now: Date): Promise<Lease | undefined>;
  lastPass(inboxId: string): Promise<TriagePass | undefined>;
  /**
   * Removes the passes that ended before `before`, except each inbox's last (what agents are told of, and what the
   * cadence counts from): the sweep's, with the activity log's retention (decision 0121). How many.
   */
  deletePassesBefore(before: Date): Promise<number>;
}
