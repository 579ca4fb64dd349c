import type { Inbox } from '../../core/inboxes/inbox.ts';
import type { MailSubmitter, Submission } from '../../core/sending/mail-submitter.ts';

/**
 * Chooses how an inbox sends: the demo inbox sends nothing (the caller files a copy in its Sent folder, as for any
 * inbox), IMAP and iCloud submit over SMTP. Gmail and Microsoft add their API senders here.
 */
export class ProviderSubmitter implements MailSubmitter {
  private readonly smtp: MailSubmitter;
  constructor(smtp: MailSubmitter) {
    this.smtp = smtp;
  }

  canSend(inbox: Inbox): boolean {
    return inbox.isDemo || this.smtp.canSend(inbox);
  }

  async submit(inbox: Inbox, submission: Submission): Promise<void> {
    if (inbox.isDemo) return;
    await this.smtp.submit(inbox, submission);
  }
}
