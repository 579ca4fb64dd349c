import type { Account } from '../../../core/accounts/account.ts';
import type { InboxStore } from '../../../core/inboxes/inbox-store.ts';
import type { InboxId } from '../../../core/inboxes/inbox.ts';
import { newId } from '../../../lib/random.ts';
import type { Db } from '../../storage/database.ts';
import { demoMessages } from './demo-content.ts';
import { DemoMailbox } from './demo-mailbox.ts';
import { DEMO_OWNER } from './demo-message.ts';

/**
 * Every new account gets a demo inbox: realistic sample mail with google semantics, living only in our database
 * (DESIGN.md §4), so every tool can be tried before a real mailbox is connected.
 */
export async function createDemoInbox(
  db: Db,
  inboxes: InboxStore,
  account: Account,
  now: Date,
): Promise<InboxId> {
  const id = newId('inbox') as InboxId;
  await inboxes.create({
    id,
    accountId: account.id,
    label: 'Demo inbox',
    provider: 'google',
    email: DEMO_OWNER.address,
    imapHost: null,
    imapPort: null,
    imapUser: null,
    smtpHost: null,
    smtpPort: null,
    isDemo: true,
    connectionStatus: 'connected',
    createdAt: now,
  });
  await new DemoMailbox(db, id).seed(demoMessages(), now);
  return id;
}
