import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imapClient } from '../support/imap-inbox.ts';
import { inboxWithMail, type InboxWithMail } from '../support/inbox-with-mail.ts';
import { expectToolOk } from '../support/tool-caller.ts';

// A person who files every client in a folder of its own: 1,200 folders. list_folders answered every folder in one
// result, which the result-size limit cut at about 600 of them, with a note to ask for the next page — and list_folders
// had none. It pages now (and filters by name), each page within the size limit.
const COUNT = 1200;
const name = (i: number) => `Client ${String(i).padStart(4, '0')} — project files and correspondence`;

describe('a mailbox with more folders than one result holds', () => {
  let inbox: InboxWithMail;
  let call: InboxWithMail['call'];
  let inboxId: string;

  beforeAll(async () => {
    inbox = await inboxWithMail('SQLite', 'fil', [], {
      before: async (dovecot, user, password) => {
        const c = await imapClient(dovecot, user, password);
        try {
          for (let i = 0; i < COUNT; i++) await c.mailboxCreate(['Clients', name(i)]);
        } finally {
          await c.logout();
        }
      },
    });
    ({ call, inboxId } = inbox);
  }, 180_000);
  afterAll(() => inbox.close());

  it('pages through every folder once, each page whole (never cut)', async () => {
    const seen: string[] = [];
    let pages = 0;
    let total = 0;
    for (let offset: number | null = 0; offset !== null; pages++) {
      const r = await call('list_folders', { inboxId, offset });
      const page = expectToolOk(r);
      expect(page['truncated'], 'a page is never cut by the size limit').toBeUndefined();
      seen.push(...(page['folders'] as { path: string }[]).map((f) => f.path));
      total = page['total'] as number;
      offset = page['nextOffset'] as number | null;
    }
    expect(pages).toBeGreaterThan(1);
    // Clients/…, its parent, and the special-use folders with INBOX.
    expect(seen.filter((p) => p.startsWith('Clients/'))).toHaveLength(COUNT);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(total);
  });

  it('finds a folder by part of its name or path, and takes a smaller page', async () => {
    const found = expectToolOk(await call('list_folders', { inboxId, query: 'client 1199' }));
    expect(found).toMatchObject({ total: 1, nextOffset: null });
    expect((found['folders'] as { path: string }[]).map((f) => f.path)).toEqual([`Clients/${name(1199)}`]);
    const small = expectToolOk(
      await call('list_folders', { inboxId, query: 'clients/', limit: 10, offset: 20 }),
    );
    expect(small).toMatchObject({ total: COUNT, nextOffset: 30 });
    expect(small['folders']).toHaveLength(10);
  });
});
