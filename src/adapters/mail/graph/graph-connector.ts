import type { CredentialVault } from '../../../core/inboxes/credential-vault.ts';
import type { Inbox } from '../../../core/inboxes/inbox.ts';
import { MailAuthError } from '../../../core/mail/mail-ports.ts';
import type { MailCredential } from '../../../core/mail/mail-types.ts';
import type { Submission, SubmitReceipt } from '../../../core/sending/mail-submitter.ts';
import { AccessTokens } from '../../sign-in/access-tokens.ts';
import type { ProviderOAuth } from '../../sign-in/provider-oauth.ts';
import { ConnectionSemaphore } from '../imap/host-semaphore.ts';
import { GraphApi } from './graph-api.ts';
import { sendDraftOnce } from '../provider-api.ts';
import { GraphSession } from './graph-session.ts';

/** Graph's documented limit: 4 concurrent requests per app and mailbox. */
const PER_MAILBOX = 4;

export interface GraphConnectorOptions {
  readonly oauth: ProviderOAuth;
  /** Where a rotated refresh token is stored (sealed), before its access token is used. */
  readonly vault: CredentialVault;
  readonly apiUrl: string;
  readonly pollMs: number;
  readonly now?: () => Date;
}

/**
 * Opens Graph sessions for inboxes signed in with Microsoft and sends their drafts. Microsoft rotates refresh
 * tokens: each refresh's new one is sealed into the vault at once, so a restart (or another process) refreshes with
 * the newest, and a refresh refused because another process rotated first follows the vault (access-tokens.ts).
 * One token cache, one limiter and one record of each mailbox's well-known folders per process.
 */
export class GraphConnector {
  private readonly opts: GraphConnectorOptions;
  private readonly tokens: AccessTokens;
  private readonly limiter = new ConnectionSemaphore(PER_MAILBOX);
  /** Each mailbox's well-known folder ids, by inbox: looked up once, not by every session (decision 0127). */
  private readonly wellKnown = new Map<string, Map<string, string>>();

  constructor(opts: GraphConnectorOptions) {
    this.opts = opts;
    this.tokens = new AccessTokens((refreshToken) => opts.oauth.refresh(refreshToken));
  }

  open(inbox: Inbox, credential: MailCredential): GraphSession {
    if (credential.kind !== 'microsoft') throw new MailAuthError('this inbox has no Microsoft sign-in');
    const stored = credential.refreshToken;
    const onRotated = (refreshToken: string) =>
      this.opts.vault.put(
        inbox.id,
        { kind: 'microsoft', username: credential.username, refreshToken },
        this.opts.now?.() ?? new Date(),
      );
    // Another instance may have rotated it since this session read it: a refresh refused then follows the vault.
    const storedNow = async () => {
      const now = await this.opts.vault.get(inbox.id);
      return now?.kind === 'microsoft' ? now.refreshToken : undefined;
    };
    return new GraphSession({
      api: new GraphApi({
        rootUrl: this.opts.apiUrl,
        token: (force) => this.tokens.get(inbox.id, stored, { force, onRotated, stored: storedNow }),
        limiter: this.limiter,
        limiterKey: inbox.id,
      }),
      pollMs: this.opts.pollMs,
      wellKnown: this.wellKnownOf(inbox.id),
    });
  }

  private wellKnownOf(inboxId: string): Map<string, string> {
    let known = this.wellKnown.get(inboxId);
    if (known === undefined) this.wellKnown.set(inboxId, (known = new Map<string, string>()));
    return known;
  }

  /**
   * Sends the mailbox's draft with `/send` (202), exactly once: the draft is first given the message as composed
   * now (a failure there sends nothing), then sent in one request that is never repeated on its own. A draft the
   * person deleted meanwhile is written again first. Graph files the sent message in Sent Items itself.
   */
  submit(inbox: Inbox, credential: MailCredential, s: Submission): Promise<SubmitReceipt> {
    let session: GraphSession | undefined;
    return sendDraftOnce(
      async () => {
        session = this.open(inbox, credential);
        const existing =
          s.draft !== undefined && (await session.isDraft(s.draft.ref)) ? s.draft.ref : undefined;
        return (await session.writeDraft(s.raw, existing)).id;
      },
      (draftId) => (session as GraphSession).sendDraft(draftId),
      'Microsoft Graph did not answer',
    );
  }

  /** Microsoft has no endpoint to revoke one refresh token: forgetting it here is what removal can do. */
  forget(inboxId: string): void {
    this.tokens.forget(inboxId);
    this.wellKnown.delete(inboxId);
  }
}
