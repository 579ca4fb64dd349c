import type { Clock } from '../../lib/clock.ts';
import { credentialKeyOf, type CredentialStillWorks } from '../auth/principal.ts';
import type { RateLimiter, RateRule } from '../rate-limits/rate-limiter.ts';
import { sha256Hex } from '../../lib/secret-token.ts';
import type { InboxStore } from '../inboxes/inbox-store.ts';
import type { SecretLinkStore } from '../inboxes/secret-link-store.ts';
import type { AttachmentContent } from '../mail/mail-types.ts';
import type { ReadService } from './read-service.ts';

interface Deps {
  readonly links: SecretLinkStore;
  readonly inboxes: InboxStore;
  readonly read: ReadService;
  readonly clock: Clock;
  readonly stillWorks: CredentialStillWorks;
  readonly limiter: RateLimiter;
  /** The request budget of the surface that issues links (MCP): a download spends from it. */
  readonly budget: RateRule;
}

/** What a download link opens to: the attachment, nothing (unknown, expired or its credential gone), or a wait. */
export type OpenedLink =
  | { readonly kind: 'open'; readonly content: AttachmentContent; readonly done: () => Promise<void> }
  | { readonly kind: 'invalid' }
  | { readonly kind: 'limited'; readonly retryAfterSeconds: number };

/**
 * Redeems attachment download links: one account's one attachment, while the link lives and the credential it was
 * issued to still works (decision 0120) — a key revoked, an agent disconnected or a plan ended takes its links too.
 */
export class AttachmentLinks {
  private readonly deps: Deps;
  constructor(deps: Deps) {
    this.deps = deps;
  }

  /**
   * A download is a request made with the credential the link was issued to (decision 0125): it spends from that
   * credential's budget before the mailbox is asked, so a link passed on cannot fetch the attachment from the mailbox
   * more often than its agent could call tools.
   */
  async open(token: string): Promise<OpenedLink> {
    const invalid = { kind: 'invalid' } as const;
    if (!/^att_[a-z0-9]{40}$/.test(token)) return invalid;
    const link = await this.deps.links.find(sha256Hex(token), 'attachment', this.deps.clock.now());
    if (link?.inboxId === null || link === undefined) return invalid;
    const payload = link.payload as { messageId?: unknown; partId?: unknown; issuedTo?: unknown };
    if (typeof payload.messageId !== 'string' || typeof payload.partId !== 'string') return invalid;
    const issuedTo = payload.issuedTo as { kind?: unknown; id?: unknown } | undefined;
    if (typeof issuedTo?.kind !== 'string' || typeof issuedTo.id !== 'string') return invalid;
    const credential = { kind: issuedTo.kind, id: issuedTo.id };
    if (!(await this.deps.stillWorks(link.accountId, credential, 'read', link.inboxId))) return invalid;
    const inbox = await this.deps.inboxes.get(link.accountId, link.inboxId);
    if (inbox === undefined || inbox.paused) return invalid;
    const spent = await this.deps.limiter.consume(this.deps.budget, credentialKeyOf(credential));
    if (!spent.allowed) return { kind: 'limited', retryAfterSeconds: spent.retryAfterSeconds };
    const opened = await this.deps.read.openAttachment(inbox, payload.messageId, payload.partId);
    return opened === undefined ? invalid : { kind: 'open', ...opened };
  }
}
