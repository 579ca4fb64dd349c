import type { Clock } from '../../lib/clock.ts';
import { sha256Hex } from '../../lib/secret-token.ts';
import type { InboxStore } from '../inboxes/inbox-store.ts';
import type { SecretLinkStore } from '../inboxes/secret-link-store.ts';
import type { AttachmentContent } from '../mail/mail-types.ts';
import type { ReadService } from './read-service.ts';

/** Redeems attachment download links: one account's one attachment, while the link lives. */
export class AttachmentLinks {
  private readonly deps: { links: SecretLinkStore; inboxes: InboxStore; read: ReadService; clock: Clock };
  constructor(deps: { links: SecretLinkStore; inboxes: InboxStore; read: ReadService; clock: Clock }) {
    this.deps = deps;
  }

  async open(token: string): Promise<{ content: AttachmentContent; done: () => Promise<void> } | undefined> {
    if (!/^att_[a-z0-9]{40}$/.test(token)) return undefined;
    const link = await this.deps.links.find(sha256Hex(token), 'attachment', this.deps.clock.now());
    if (link?.inboxId === null || link === undefined) return undefined;
    const payload = link.payload as { messageId?: unknown; partId?: unknown };
    if (typeof payload.messageId !== 'string' || typeof payload.partId !== 'string') return undefined;
    const inbox = await this.deps.inboxes.get(link.accountId, link.inboxId);
    if (inbox === undefined || inbox.paused) return undefined;
    return this.deps.read.openAttachment(inbox, payload.messageId, payload.partId);
  }
}
