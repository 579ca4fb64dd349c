import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { startDovecot, type Dovecot } from '../rig/index.ts';
import { connectImapInbox, imapClient } from '../support/imap-inbox.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolOk, type toolCaller } from '../support/tool-caller.ts';

// A person who files every client in a folder of its own: 1,200 folders. list_folders answered every folder in one
// result, which the result-size limit cut at about 600 of them, with a note to ask for the next page — and list_folders
// had none. It pages now (and filters by name), each page within the size limit.
const USER = 'fil';
const PASSWORD = 'fil-imap-password';
const COUNT = 1200;
const name = (i: number) => `Client ${String(i).padStart(4, '0')} — project files and correspondence`;

describe('a mailbox with more folders than one result holds', () => {
  let dovecot: Dovecot;
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let inboxId: string;

  beforeAll(async () => {
    dovecot = await startDovecot({ users: { [USER]: PASSWORD } });
    const c = await imapClient(dovecot, USER, PASSWORD);
    try {
      for (let i = 0; i < COUNT; i++) await c.mailboxCreate(['Clients', name(i)]);
    } finally {
      await c.logout();
    }
    app = await createTestApp();
    ({ call } = await agentOn(app));
    inboxId = await connectImapInbox(app, call, { dovecot, user: USER, password: PASSWORD });
  }, 180_000);

  afterAll(async () => {
    await app.close();
    await dovecot.stop();
  });

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
