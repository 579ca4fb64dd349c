import { describe } from 'vitest';
import { DemoMailbox } from '../../src/adapters/mail/demo/demo-mailbox.ts';
import { docFromRaw } from '../../src/adapters/mail/demo/doc-from-raw.ts';
import { DemoSession } from '../../src/adapters/mail/demo/demo-session.ts';
import { openDatabase, migrateToLatest, createStores } from '../../src/adapters/storage/index.ts';
import { mailSessionContract, type MailHarness } from '../../src/core/mail/mail-session.contract.ts';
import { mailWriterContract } from '../../src/core/mail/mail-writer.contract.ts';
import type { AccountId } from '../../src/core/accounts/account.ts';
import type { InboxId } from '../../src/core/inboxes/inbox.ts';
import { newId } from '../../src/lib/random.ts';
import { tempDir } from '../support/temp-dir.ts';

/** The demo mailbox behind the same contract as IMAP: appended mail is parsed into demo documents. */
async function demoHarness(): Promise<MailHarness> {
  const db = openDatabase({ kind: 'sqlite', path: `${tempDir('demo-contract-')}/db.sqlite` });
  await migrateToLatest(db);
  const stores = createStores(db);
  const accountId = newId('acct') as AccountId;
  await stores.accounts.create({
    id: accountId,
    email: `${accountId}@example.test`,
    plan: 'pro',
    trialEndsAt: null,
    createdAt: new Date(),
  });
  const inboxId = newId('inbox') as InboxId;
  await stores.inboxes.create({
    id: inboxId,
    accountId,
    label: 'demo',
    provider: 'google',
    email: 'demo@example.test',
    imapHost: null,
    imapPort: null,
    imapUser: null,
    smtpHost: null,
    smtpPort: null,
    isDemo: true,
    connectionStatus: 'connected',
    createdAt: new Date(),
  });
  const box = new DemoMailbox(db, inboxId);
  await box.seed([], new Date('2025-01-01T00:00:00Z'));
  const uidOf = async (path: string, messageId: string) =>
    (await box.rows(path)).find((r) => r.doc.messageId === messageId)?.uid;
  return {
    inboxPath: 'INBOX',
    archivePath: 'Archive',
    watchNoticesDelivery: false,
    session: () => Promise.resolve(new DemoSession(box)),
    async append(path, raw, opts = {}) {
      const date = opts.date ?? new Date();
      await box.append(path, await docFromRaw(raw, date, opts.flags ?? []), opts.flags ?? [], date);
    },
    async setFlags(path, messageId, flags) {
      const uid = await uidOf(path, messageId);
      if (uid !== undefined) await box.setFlags(path, uid, flags);
    },
    async expunge(path, messageId) {
      const uid = await uidOf(path, messageId);
      if (uid !== undefined) await box.expunge(path, uid);
    },
    async moveElsewhere(path, messageId, to) {
      const uid = await uidOf(path, messageId);
      if (uid !== undefined) await box.move(path, uid, to);
    },
    async resetUidValidity(path) {
      for (const r of await box.rows(path)) await box.expunge(path, r.uid);
      await box.resetUidValidity(path);
    },
    close: () => db.close(),
  };
}

describe('demo mailbox', () => {
  mailSessionContract('demo', demoHarness);
  mailWriterContract('demo', demoHarness);
});
