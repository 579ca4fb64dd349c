import type { Brand } from '../../lib/brand.ts';
import type { AccountId } from '../accounts/account.ts';

export type InboxId = Brand<string, 'InboxId'>;
export const PROVIDERS = ['google', 'microsoft', 'icloud', 'imap'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** `not_connected`: no working credential yet; `needs_reconnect`: the stored one stopped working. */
export const CONNECTION_STATUSES = ['not_connected', 'connected', 'needs_reconnect'] as const;
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

export interface Inbox {
  readonly id: InboxId;
  readonly accountId: AccountId;
  readonly label: string;
  readonly provider: Provider;
  readonly email: string;
  readonly imapHost: string | null;
  readonly imapPort: number | null;
  readonly imapUser: string | null;
  /** Where mail is submitted (SMTP, port 587 STARTTLS or 465 TLS), with the same credential as IMAP. */
  readonly smtpHost: string | null;
  readonly smtpPort: number | null;
  /** Sample data that lives only in our database; nothing is ever written to a real mailbox. */
  readonly isDemo: boolean;
  readonly paused: boolean;
  readonly connectionStatus: ConnectionStatus;
  /** A short, person-readable reason for the last connection failure; never a provider stack trace. */
  readonly lastError: string | null;
  /**
   * The person's name on the mail they send from this inbox (`Name <address>`): null until learned from their Sent
   * mail or set by them on the console, empty when they send without one (decision 0088). Agents cannot change it.
   */
  readonly senderName: string | null;
  /**
   * When the person last gave the inbox its credential (a password, a sign-in) or changed its servers; null when
   * never, or before this was recorded. A watcher started before it logs in with what is gone: it starts again.
   */
  readonly credentialSetAt: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** The From line of the mail sent from this inbox, as recipients see it: `Name <address>`, or the address alone. */
export function fromLine(inbox: Pick<Inbox, 'email' | 'senderName'>): string {
  return inbox.senderName === null || inbox.senderName === ''
    ? inbox.email
    : `${inbox.senderName} <${inbox.email}>`;
}

export function parseInboxId(raw: string): InboxId | undefined {
  return /^inbox_[a-z0-9]{20}$/.test(raw) ? (raw as InboxId) : undefined;
}
