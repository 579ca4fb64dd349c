import type { Inbox } from '../inboxes/inbox.ts';
import type { LoginFailure } from '../mail/mail-ports.ts';
import type { MailCredential } from '../mail/mail-types.ts';

/** One message to hand to the inbox's submission server, exactly as composed. */
export interface Submission {
  readonly envelopeFrom: string;
  readonly recipients: readonly string[];
  readonly raw: Uint8Array;
  /** Where the draft of this message sits in the mailbox (providers that send a draft, such as Gmail). */
  readonly draft?: { readonly folderPath: string; readonly ref: string } | undefined;
}

/**
 * What the provider did besides delivering: Gmail and Graph send the mailbox's own draft, which files the copy in
 * Sent and consumes the draft; after SMTP the caller files the copy and removes the draft itself.
 */
export interface SubmitReceipt {
  readonly filedByProvider: boolean;
  /**
   * The submission server filed a copy in Sent itself, as Gmail's SMTP does for every message it takes: another copy
   * from the caller would be a duplicate. The draft is still the caller's to remove.
   */
  readonly copyFiledByServer?: boolean;
  /**
   * Recipients the server refused while it took the message for the others (SMTP: a RCPT TO answered 5xx or 4xx).
   * No bounce will tell the person: the refusal was ours to hear. An API that takes the message whole says nothing.
   */
  readonly refusedRecipients?: readonly string[];
}

/** The server refused before accepting anything (connect, TLS, login, MAIL FROM, RCPT, a negative reply to DATA). */
export class SubmitRefusedError extends Error {
  override readonly name = 'SubmitRefusedError';
  /** True when the stored credential was refused: the inbox needs reconnecting. */
  readonly authFailed: boolean;
  /**
   * True when the submission server itself could not be used — its name unknown, nothing answering, no TLS, a
   * certificate not trusted: the inbox's outgoing server may be the wrong one (the owner changes it, decision 0095).
   */
  readonly serverUnusable: boolean;
  constructor(message: string, o: { readonly authFailed?: boolean; readonly serverUnusable?: boolean } = {}) {
    super(message);
    this.authFailed = o.authFailed ?? false;
    this.serverUnusable = o.serverUnusable ?? false;
  }
}

/** The exchange broke off after the message may have been accepted; it must not be retried automatically. */
export class SubmitUncertainError extends Error {
  override readonly name = 'SubmitUncertainError';
}

/**
 * Hands a message to the inbox's provider for delivery (IMAP/iCloud: SMTP submission with the stored credential;
 * Gmail: `drafts.send` of the mailbox's draft; the demo inbox: nowhere — it sends nothing). Throws one of the two errors above; anything else is a bug.
 */
export interface MailSubmitter {
  canSend(inbox: Inbox): boolean;
  submit(inbox: Inbox, submission: Submission): Promise<SubmitReceipt>;
}

/** Where an inbox hands mail over for sending: an SMTP submission server. */
export interface MailServer {
  readonly host: string;
  readonly port: number;
}

/**
 * Logs in to a submission server and out again, sending nothing: a password is checked where the inbox's mail would
 * go when the person gives it, not at the first send they approved (decision 0095).
 */
export interface SubmissionLoginTester {
  testLogin(server: MailServer, credential: MailCredential): Promise<LoginFailure | undefined>;
}
