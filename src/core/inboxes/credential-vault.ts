import type { MailCredential } from '../mail/mail-types.ts';
import type { InboxId } from './inbox.ts';

/**
 * Mailbox credentials at rest. The adapter seals them (AES-256-GCM under the service key, bound to the inbox id)
 * before they touch the database; nothing else ever sees the plaintext but the connector that logs in.
 */
export interface CredentialVault {
  put(inboxId: InboxId, credential: MailCredential, now: Date): Promise<void>;
  get(inboxId: InboxId): Promise<MailCredential | undefined>;
  delete(inboxId: InboxId): Promise<void>;
}
