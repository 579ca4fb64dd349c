/** One message of the demo mailbox, stored as a structured document (never parsed from MIME). */
export interface DemoAddress {
  readonly name: string;
  readonly address: string;
}

export interface DemoAttachment {
  readonly filename: string;
  readonly contentType: string;
  /** The file's bytes, base64. Keep them small (≤ 20 KB). */
  readonly base64: string;
  readonly inline?: boolean;
}

export interface DemoMessage {
  /** Canonical folder: 'inbox' | 'sent' | 'drafts' | 'archive' | 'spam' | 'trash'. */
  readonly folder: 'inbox' | 'sent' | 'drafts' | 'archive' | 'spam' | 'trash';
  /** Minutes before "now" the message arrived; the mailbox is built relative to the account's creation. */
  readonly minutesAgo: number;
  readonly messageId: string;
  readonly inReplyTo?: string;
  readonly references?: readonly string[];
  readonly from: DemoAddress;
  readonly to: readonly DemoAddress[];
  readonly cc?: readonly DemoAddress[];
  readonly replyTo?: readonly DemoAddress[];
  readonly subject: string;
  readonly text: string;
  readonly html?: string;
  readonly attachments?: readonly DemoAttachment[];
  readonly listId?: string;
  readonly listUnsubscribe?: string;
  readonly listUnsubscribePost?: boolean;
  readonly unread: boolean;
  readonly starred?: boolean;
  /** Gmail-style labels on the message (the demo behaves like a google inbox). */
  readonly labels?: readonly string[];
  /** What the demo's receiving server concluded (RFC 8601 Authentication-Results). */
  readonly authenticationResults?: string;
}

/** The person the demo mailbox belongs to. */
export const DEMO_OWNER: DemoAddress = { name: 'Alex Rivera', address: 'alex.rivera@demo.inbox-triage.test' };
