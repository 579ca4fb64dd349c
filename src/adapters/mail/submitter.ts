import type { CredentialVault } from '../../core/inboxes/credential-vault.ts';
import type { Inbox } from '../../core/inboxes/inbox.ts';
import {
  SubmitRefusedError,
  type MailSubmitter,
  type Submission,
  type SubmitReceipt,
} from '../../core/sending/mail-submitter.ts';
import type { GmailConnector } from './gmail/gmail-connector.ts';
import type { GraphConnector } from './graph/graph-connector.ts';

/**
 * Chooses how an inbox sends: the demo inbox sends nothing (the caller files a copy in its Sent folder, as for any
 * inbox), IMAP and iCloud submit over SMTP, Gmail sends its draft through the API (when Google sign-in is
 * configured), Microsoft sends its draft through Graph.
 */
export class ProviderSubmitter implements MailSubmitter {
  private readonly smtp: MailSubmitter;
  private readonly gmail: { connector: GmailConnector; vault: CredentialVault } | undefined;
  private readonly graph: { connector: GraphConnector; vault: CredentialVault } | undefined;
  constructor(
    smtp: MailSubmitter,
    gmail?: { connector: GmailConnector; vault: CredentialVault },
    graph?: { connector: GraphConnector; vault: CredentialVault },
  ) {
    this.smtp = smtp;
    this.gmail = gmail;
    this.graph = graph;
  }

  canSend(inbox: Inbox): boolean {
    if (inbox.isDemo) return true;
    if (inbox.provider === 'google') return this.gmail !== undefined;
    if (inbox.provider === 'microsoft') return this.graph !== undefined;
    return this.smtp.canSend(inbox);
  }

  async submit(inbox: Inbox, submission: Submission): Promise<SubmitReceipt> {
    if (inbox.isDemo) return { filedByProvider: false };
    if (inbox.provider === 'google') {
      if (this.gmail === undefined)
        throw new SubmitRefusedError('Google sign-in is not configured on this server');
      const credential = await this.gmail.vault.get(inbox.id);
      if (credential === undefined)
        throw new SubmitRefusedError('no readable stored credential', { authFailed: true });
      return this.gmail.connector.submit(inbox, credential, submission);
    }
    if (inbox.provider === 'microsoft') {
      if (this.graph === undefined)
        throw new SubmitRefusedError('Microsoft sign-in is not configured on this server');
      const credential = await this.graph.vault.get(inbox.id);
      if (credential === undefined)
        throw new SubmitRefusedError('no readable stored credential', { authFailed: true });
      return this.graph.connector.submit(inbox, credential, submission);
    }
    return this.smtp.submit(inbox, submission);
  }
}
