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
  /** Marks it used. Atomic: of concurrent callers exactly one gets true. */
  consume(idHash: string, now: Date): Promise<boolean>;
}
