import type { Clock } from '../../lib/clock.ts';
import type { AccountId } from '../accounts/account.ts';
import { sha256Hex } from '../../lib/secret-token.ts';
import type { InboxStore } from '../inboxes/inbox-store.ts';
import type { SecretLinkStore } from '../inboxes/secret-link-store.ts';
import type { AttachmentContent } from '../mail/mail-types.ts';
import type { ReadService } from './read-service.ts';

/**
 * Whether the credential a link was issued to still works for its account now: not revoked or disconnected, and the
 * account's agents still allowed (no trial ended, no payment failed).
 */
export type CredentialStillWorks = (
  accountId: AccountId,
  credential: { readonly kind: string; readonly id: string },
) => Promise<boolean>;

interface Deps {
  readonly links: SecretLinkStore;
  readonly inboxes: InboxStore;
  readonly read: ReadService;
  readonly clock: Clock;
  readonly stillWorks: CredentialStillWorks;
}

/**
 * Redeems attachment download links: one account's one attachment, while the link lives and the credential it was
 * issued to still works (decision 0120) — a key revoked, an agent disconnected or a plan ended takes its links too.
 */
export class AttachmentLinks {
  private readonly deps: Deps;
  constructor(deps: Deps) {
    this.deps = deps;
  }

  async open(token: string): Promise<{ content: AttachmentContent; done: () => Promise<void> } | undefined> {
    if (!/^att_[a-z0-9]{40}$/.test(token)) return undefined;
    const link = await this.deps.links.find(sha256Hex(token), 'attachment', this.deps.clock.now());
    if (link?.inboxId === null || link === undefined) return undefined;
    const payload = link.payload as { messageId?: unknown; partId?: unknown; issuedTo?: unknown };
    if (typeof payload.messageId !== 'string' || typeof payload.partId !== 'string') return undefined;
    const issuedTo = payload.issuedTo as { kind?: unknown; id?: unknown } | undefined;
    if (typeof issuedTo?.kind !== 'string' || typeof issuedTo.id !== 'string') return undefined;
    if (!(await this.deps.stillWorks(link.accountId, { kind: issuedTo.kind, id: issuedTo.id })))
      return undefined;
    const inbox = await this.deps.inboxes.get(link.accountId, link.inboxId);
    if (inbox === undefined || inbox.paused) return undefined;
    return this.deps.read.openAttachment(inbox, payload.messageId, payload.partId);
  }
}
