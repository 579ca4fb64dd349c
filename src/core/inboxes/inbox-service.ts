import type { AccountId } from '../accounts/account.ts';
import type { InboxStore } from './inbox-store.ts';
import { inboxView, type InboxView } from './inbox-view.ts';

/** Inbox use-cases shared by every surface. */
export class InboxService {
  private readonly inboxes: InboxStore;
  constructor(deps: { inboxes: InboxStore }) {
    this.inboxes = deps.inboxes;
  }

  async list(accountId: AccountId): Promise<InboxView[]> {
    return (await this.inboxes.list(accountId)).map(inboxView);
  }
}
