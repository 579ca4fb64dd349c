import type { CredentialVault } from '../../core/inboxes/credential-vault.ts';
import type { Inbox } from '../../core/inboxes/inbox.ts';
import {
  MailAuthError,
  MailProviderError,
  type MailConnector,
  type MailSession,
} from '../../core/mail/mail-ports.ts';
import type { MailSessionFactory } from '../../core/mail/mail-session-factory.ts';
import type { Db } from '../storage/database.ts';
import { DemoMailbox } from './demo/demo-mailbox.ts';
import { DemoSession } from './demo/demo-session.ts';
import type { GmailConnector } from './gmail/gmail-connector.ts';
import type { GraphConnector } from './graph/graph-connector.ts';

/** Google sign-in is off on this server: what the operator sets to turn it on. */
const NO_GOOGLE =
  'Google sign-in is not configured on this server (GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET)';

const NO_MICROSOFT =
  'Microsoft sign-in is not configured on this server (MICROSOFT_CLIENT_ID and MICROSOFT_CLIENT_SECRET)';

/**
 * Chooses the adapter for an inbox: the demo mailbox, IMAP (also iCloud) with its unsealed credential, or Gmail
 * with its Google sign-in, or Microsoft Graph with its Microsoft sign-in.
 */
export class ProviderSessionFactory implements MailSessionFactory {
  private readonly deps: {
    db: Db;
    vault: CredentialVault;
    imap: MailConnector;
    gmail?: GmailConnector | undefined;
    graph?: GraphConnector | undefined;
  };
  constructor(deps: {
    db: Db;
    vault: CredentialVault;
    imap: MailConnector;
    gmail?: GmailConnector | undefined;
    graph?: GraphConnector | undefined;
  }) {
    this.deps = deps;
  }

  async open(inbox: Inbox): Promise<MailSession> {
    if (inbox.isDemo) return new DemoSession(new DemoMailbox(this.deps.db, inbox.id));
    if (inbox.provider === 'google') return this.gmail(inbox);
    if (inbox.provider === 'microsoft') return this.graph(inbox);
    // IMAP and iCloud.
    const credential = await this.deps.vault.get(inbox.id);
    if (credential === undefined) throw new MailAuthError('no readable stored credential');
    return this.deps.imap.connect({ host: inbox.imapHost ?? '', port: inbox.imapPort ?? 993 }, credential);
  }

  definesLabels(inbox: Inbox): boolean {
    return !inbox.isDemo && (inbox.provider === 'google' || inbox.provider === 'microsoft');
  }

  async watchInbox(inbox: Inbox, onChange: () => void): Promise<() => Promise<void>> {
    // Nothing arrives in the demo mailbox on its own.
    if (inbox.isDemo) return () => Promise.resolve();
    if (inbox.provider === 'google') {
      // Gmail push needs a public Pub/Sub topic: poll the history instead (one request per interval).
      const session = await this.gmail(inbox);
      const stop = await session.watch('INBOX', onChange);
      return async () => {
        await stop();
        await session.close();
      };
    }
    if (inbox.provider === 'microsoft') {
      // Graph change notifications need a public https endpoint: poll the inbox folder's delta instead.
      const session = await this.graph(inbox);
      const inboxFolder = (await session.listFolders()).find((f) => f.canonical === 'inbox');
      if (inboxFolder === undefined) throw new MailProviderError('this mailbox has no inbox folder');
      const stop = await session.watch(inboxFolder.path, onChange);
      return async () => {
        await stop();
        await session.close();
      };
    }
    const credential = await this.deps.vault.get(inbox.id);
    if (credential === undefined) throw new MailAuthError('no readable stored credential');
    // RFC 3501 §5.1: the name INBOX always denotes the inbox folder.
    return this.deps.imap.watch(
      { host: inbox.imapHost ?? '', port: inbox.imapPort ?? 993 },
      credential,
      'INBOX',
      onChange,
    );
  }

  private async graph(inbox: Inbox) {
    if (this.deps.graph === undefined) throw new MailProviderError(NO_MICROSOFT);
    const credential = await this.deps.vault.get(inbox.id);
    if (credential === undefined) throw new MailAuthError('no readable stored credential');
    return this.deps.graph.open(inbox, credential);
  }

  private async gmail(inbox: Inbox) {
    if (this.deps.gmail === undefined) throw new MailProviderError(NO_GOOGLE);
    const credential = await this.deps.vault.get(inbox.id);
    if (credential === undefined) throw new MailAuthError('no readable stored credential');
    return this.deps.gmail.open(inbox, credential);
  }
}
