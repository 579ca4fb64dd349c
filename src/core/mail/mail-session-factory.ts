import type { Inbox } from '../inboxes/inbox.ts';
import type { MailSession } from './mail-ports.ts';

/**
 * Opens a session for an inbox: the demo mailbox in our database, or the provider with the inbox's sealed
 * credential. Throws `MailAuthError` when the credential is refused, `MailProviderError` otherwise.
 */
export interface MailSessionFactory {
  open(inbox: Inbox): Promise<MailSession>;
  /** Whether the provider keeps a list of labels of its own (`MailboxReader.listLabels`) worth a session to read. */
  definesLabels(inbox: Inbox): boolean;
  /** Calls `onChange` when mail arrives in the inbox folder; one connection per watched inbox. */
  watchInbox(inbox: Inbox, onChange: () => void): Promise<() => Promise<void>>;
}
