/** A validated `/oauth/authorize` request waiting for the person to sign in and decide (10 minutes). */
export interface AuthorizationRequest {
  readonly id: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly state: string | null;
  readonly codeChallenge: string;
  readonly scope: readonly string[];
  readonly resource: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export interface RequestStore {
  save(request: AuthorizationRequest): Promise<void>;
  /** A live request. */
  get(id: string, now: Date): Promise<AuthorizationRequest | undefined>;
  /** Removes it; true for exactly one of concurrent callers (a consent is used once). */
  take(id: string): Promise<boolean>;
  /** The housekeeping sweep: removes the requests that ended before `now` (decision 0122). How many. */
  deleteExpired(now: Date): Promise<number>;
}
