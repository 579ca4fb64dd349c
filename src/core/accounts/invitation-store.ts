export interface Invitation {
  readonly idHash: string;
  /** When set, only this address may accept. */
  readonly email: string | null;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export interface InvitationStore {
  create(invitation: Invitation): Promise<void>;
  /** A live, unused invitation, without consuming it. */
  findLive(idHash: string, now: Date): Promise<Invitation | undefined>;
  /**
   * Takes it, live and unused, out of the store: nothing keeps an invited address once the invitation is spent
   * (decision 0117). Atomic: of concurrent callers exactly one gets true.
   */
  consume(idHash: string, now: Date): Promise<boolean>;
  /** Removes invitations that ended unused before `now` (the hourly sweep); how many. */
  deleteExpired(now: Date): Promise<number>;
}
