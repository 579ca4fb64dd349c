import type { Inbox } from './inbox.ts';

/** The inbox as agents see it (contract §2 Inbox), on every surface. */
export interface InboxView {
  readonly id: string;
  readonly label: string;
  readonly provider: Inbox['provider'];
  readonly email: string;
  readonly imapHost?: string;
  readonly imapPort?: number;
  readonly imapUser?: string;
  /** Where the mail the person approves is sent (IMAP and iCloud); the owner may change it (decision 0095). */
  readonly smtpHost?: string;
  readonly smtpPort?: number;
  readonly connectionStatus: Inbox['connectionStatus'] | 'paused';
  readonly needsReconnect: boolean;
  readonly paused: boolean;
  readonly isDemo: boolean;
}

export function inboxView(i: Inbox): InboxView {
  return {
    id: i.id,
    label: i.label,
    provider: i.provider,
    email: i.email,
    ...(i.imapHost !== null && { imapHost: i.imapHost }),
    ...(i.imapPort !== null && { imapPort: i.imapPort }),
    ...(i.imapUser !== null && { imapUser: i.imapUser }),
    ...(i.smtpHost !== null && { smtpHost: i.smtpHost }),
    ...(i.smtpPort !== null && { smtpPort: i.smtpPort }),
    connectionStatus: i.paused ? 'paused' : i.connectionStatus,
    needsReconnect: i.connectionStatus === 'needs_reconnect',
    paused: i.paused,
    isDemo: i.isDemo,
  };
}
