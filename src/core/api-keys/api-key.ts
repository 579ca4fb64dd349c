import type { Brand } from '../../lib/brand.ts';
import type { AccountId } from '../accounts/account.ts';
import type { Powers } from '../auth/agent-powers.ts';
import type { InboxReach } from '../auth/inbox-reach.ts';

export type ApiKeyId = Brand<string, 'ApiKeyId'>;

/** Contract §2: keys start with `itk_`; only a hash is stored. */
export const API_KEY_PREFIX = 'itk_';

export interface ApiKey {
  readonly id: ApiKeyId;
  readonly accountId: AccountId;
  readonly name: string;
  /** The last four characters, to tell keys apart in the list ("itk_…a1b2"). */
  readonly last4: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
  /** What the person lets the key's agent do beyond reading (decision 0141); `null` for everything. */
  readonly powers: Powers;
  /** Which inboxes its agent may reach (decision 0142); `null` for every one. */
  readonly inboxes: InboxReach;
}

export function parseApiKeyId(raw: string): ApiKeyId | undefined {
  return /^key_[a-z0-9]{20}$/.test(raw) ? (raw as ApiKeyId) : undefined;
}
