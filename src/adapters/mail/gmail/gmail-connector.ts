import type { Inbox } from '../../../core/inboxes/inbox.ts';
import { MailAuthError } from '../../../core/mail/mail-ports.ts';
import type { MailCredential } from '../../../core/mail/mail-types.ts';
import type { Submission, SubmitReceipt } from '../../../core/sending/mail-submitter.ts';
import type { ProviderOAuth } from '../../sign-in/provider-oauth.ts';
import { AccessTokens } from '../../sign-in/access-tokens.ts';
import { ConnectionSemaphore } from '../imap/host-semaphore.ts';
import { GmailApi } from './gmail-api.ts';
import { sendDraftOnce } from '../provider-api.ts';
import { GmailSession } from './gmail-session.ts';

/** Gmail's per-user concurrency limit is not published; a handful keeps us clear of 429 in practice. */
const PER_MAILBOX = 4;

export interface GmailConnectorOptions {
  readonly oauth: ProviderOAuth;
  /** The Gmail API root (GMAIL_API_URL). */
  readonly apiUrl: string;
  /** How often a watched inbox asks Gmail for history (GMAIL_POLL_SECONDS). */
  readonly pollMs: number;
}

/**
 * Opens Gmail sessions for inboxes signed in with Google and sends their drafts. One access-token cache and one
 * request limiter per process, shared by every session of a mailbox, so concurrent tool calls refresh once and
 * stay within Gmail's per-user limits together.
 */
export class GmailConnector {
  private readonly opts: GmailConnectorOptions;
  private readonly tokens: AccessTokens;
  private readonly limiter = new ConnectionSemaphore(PER_MAILBOX);

  constructor(opts: GmailConnectorOptions) {
    this.opts = opts;
    this.tokens = new AccessTokens((refreshToken) => opts.oauth.refresh(refreshToken));
  }

  open(inbox: Inbox, credential: MailCredential): GmailSession {
    if (credential.kind !== 'google') throw new MailAuthError('this inbox has no Google sign-in');
    const refreshToken = credential.refreshToken;
    return new GmailSession({
      api: new GmailApi({
        rootUrl: this.opts.apiUrl,
        token: (force) => this.tokens.get(inbox.id, refreshToken, { force }),
        limiter: this.limiter,
        limiterKey: inbox.id,
      }),
      pollMs: this.opts.pollMs,
    });
  }

  /**
   * Sends the mailbox's draft with `drafts.send`, exactly once: the draft is first replaced by the message as
   * composed now (a failure there sends nothing), then sent in one request that is never repeated on its own — a
   * broken connection or a 5xx during it leaves the outcome unknown. A draft the person deleted meanwhile is
   * written again first.
   */
  submit(inbox: Inbox, credential: MailCredential, s: Submission): Promise<SubmitReceipt> {
    let session: GmailSession | undefined;
    return sendDraftOnce(
      async () => {
        session = this.open(inbox, credential);
        const existing = s.draft === undefined ? undefined : await session.draftIdOf(s.draft.ref);
        return session.writeDraft(s.raw, existing);
      },
      (draftId) => (session as GmailSession).sendDraft(draftId),
      'Gmail did not answer',
    );
  }

  /** Revokes a sign-in at Google (the person removed the inbox) and forgets its access token. */
  async revoke(inboxId: string, credential: MailCredential): Promise<void> {
    if (credential.kind !== 'google') return;
    this.tokens.forget(inboxId);
    await this.opts.oauth.revoke(credential.refreshToken);
  }
}
