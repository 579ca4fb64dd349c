import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../rig/browser.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { expectToolError, expectToolOk } from '../support/tool-caller.ts';
import { CLIENT, OTHER, startGmailApp, type GmailApp } from './gmail-app.ts';

// Issue 15 end to end: an agent adds a google inbox and asks for a sign-in link; Chromium follows it through the
// emulator's Google sign-in and back to our callback; then every kind of tool runs on the Gmail adapter, and the
// mailbox's state is read after each change through the Gmail API, as another client would.
// On both engines: the history id, positions past 2^32 and the sealed refresh token through PostgreSQL too.
describe.each(['sqlite', 'postgres'] as const)(
  'Gmail through /mcp on %s (emulate 0.12.2 + stub, Chromium sign-in)',
  (engine) => {
    let g: GmailApp;
    let browser: Browser;
    let inboxId = '';
    const sent: string[] = [];
    const owner = async () => (await g.app.stores.accounts.findByEmail('owner@example.test'))!;
    const labelsOf = async (id: string) =>
      (await g.api.users.messages.get({ userId: 'me', id, format: 'minimal' }, OTHER)).data.labelIds ?? [];

    beforeAll(async () => {
      [g, browser] = await Promise.all([
        startGmailApp(engine === 'postgres' ? { pgUrl: await freshPgDatabase() } : {}),
        launchBrowser(),
      ]);
      sent.push(await g.deliver(1, 'Quarterly invoice'));
      sent.push(await g.deliver(2, 'Lunch on Friday?'));
      sent.push(await g.deliver(3, 'Project kumquat notes'));
    });

    afterAll(async () => {
      await browser.close();
      await g.close();
    });

    it('connects through the Google sign-in link', async () => {
      const { call, google } = g;
      const added = expectToolOk(
        await call('add_inbox', { label: 'Gmail', provider: 'google', email: google.user }),
      );
      inboxId = (added['inbox'] as { id: string }).id;
      expectToolError(await call('sync_inbox', { inboxId }), 'not_connected');
      const link = expectToolOk(await call('start_google_oauth', { inboxId }));
      const url = new URL(link['url'] as string);
      expect(url.origin + url.pathname).toBe(`${google.url}/o/oauth2/v2/auth`);
      expect(Object.fromEntries(url.searchParams)).toMatchObject({
        client_id: CLIENT.id,
        redirect_uri: `${g.app.config.baseUrl}/connect/google/callback`,
        code_challenge_method: 'S256',
        access_type: 'offline',
        response_type: 'code',
        login_hint: google.user,
      });
      expect(url.searchParams.get('scope')?.split(' ')).toContain(
        'https://www.googleapis.com/auth/gmail.modify',
      );
      expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(url.searchParams.get('state')).toMatch(/^gst_[a-z0-9]{40}$/);

      const page = await (await browser.newContext()).newPage();
      await page.goto(url.toString());
      await page.getByRole('button', { name: new RegExp(google.user.replaceAll('.', '\\.')) }).click();
      await page.waitForURL(/\/connect\/google\/callback/);
      await expect.poll(() => page.locator('h1').innerText()).toBe(`${google.user} is connected`);
      expect(await page.content()).toContain('go back to your assistant');
      // The state is single use: the same callback again connects nothing.
      const replay = await page.goto(page.url());
      expect(replay?.status()).toBe(410);
      // A made-up state is refused the same way, before anything reaches Google.
      const forged = await page.goto(
        `${g.app.config.baseUrl}/connect/google/callback?state=gst_${'a'.repeat(40)}&code=x`,
      );
      expect(forged?.status()).toBe(410);
      await page.context().close();

      const status = expectToolOk(await call('get_connection_status', { inboxId }));
      expect(status).toMatchObject({ connectionStatus: 'connected', needsReconnect: false });
      // Sealed at rest: no issued token appears in the stored credential.
      const rows = JSON.stringify(
        await g.app.db.kysely.selectFrom('inbox_credentials').selectAll().execute(),
      );
      expect(google.refreshTokens().length).toBeGreaterThan(0);
      for (const t of google.refreshTokens()) expect(rows).not.toContain(t);
    });

    it('a sign-in as another address than the inbox had takes that address and says so', async () => {
      const { call, google } = g;
      const added = expectToolOk(
        await call('add_inbox', { label: 'Typo', provider: 'google', email: 'pat.typo@gmail.test' }),
      );
      const typoId = (added['inbox'] as { id: string }).id;
      const link = expectToolOk(await call('start_google_oauth', { inboxId: typoId }));
      const page = await (await browser.newContext()).newPage();
      await page.goto(link['url'] as string);
      await page.getByRole('button', { name: new RegExp(google.user.replaceAll('.', '\\.')) }).click();
      await page.waitForURL(/\/connect\/google\/callback/);
      expect(await page.locator('main').innerText()).toContain(
        `You signed in as ${google.user}, not pat.typo@gmail.test, so this inbox now uses ${google.user}.`,
      );
      await page.context().close();
      const inboxes = expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string; email: string }[];
      expect(inboxes.find((i) => i.id === typoId)?.email).toBe(google.user);
      expect(await g.app.services.tools.inboxes.remove((await owner()).id, typoId)).toBe(true);
    });

    it('syncs, lists, reads and searches', async () => {
      const { call } = g;
      const synced = expectToolOk(await call('sync_inbox', { inboxId }));
      expect(JSON.stringify(synced)).toContain('Inbox');
      const listed = expectToolOk(await call('list_messages', { inboxId }));
      const subjects = (listed['messages'] as { subject: string }[]).map((m) => m.subject);
      expect(subjects).toEqual(['Project kumquat notes', 'Lunch on Friday?', 'Quarterly invoice']);
      const invoice = (listed['messages'] as { subject: string; messageId: string }[]).find(
        (m) => m.subject === 'Quarterly invoice',
      )!;
      const full = expectToolOk(await call('get_message', { inboxId, messageId: invoice.messageId }));
      expect(JSON.stringify(full['bodyUntrusted'])).toContain('Body of Quarterly invoice.');
      // Labels the person made in Gmail are listed though no synced message carries them.
      await g.api.users.labels.create({ userId: 'me', requestBody: { name: 'Receipts' } }, OTHER);
      const labels = expectToolOk(await call('list_labels', { inboxId }))['labels'] as { name: string }[];
      expect(labels.map((l) => l.name)).toContain('Receipts');
      const found = expectToolOk(await call('search_mailbox', { inboxId, query: 'kumquat' }));
      expect((found['messages'] as { subject: string }[]).map((m) => m.subject)).toEqual([
        'Project kumquat notes',
      ]);
    });

    it('archives and undoes, labels, stars, drafts in a thread and sends once after approval', async () => {
      const { call, api } = g;
      expectToolOk(await call('begin_triage', { inboxId, agentLabel: 'e2e', force: true }));
      const listed = expectToolOk(await call('list_messages', { inboxId }));
      const bySubject = (s: string) =>
        (listed['messages'] as { subject: string; messageId: string; threadId: string }[]).find(
          (m) => m.subject === s,
        )!;
      const lunch = bySubject('Lunch on Friday?');
      const lunchGmailId = await g.idOf(sent[1]!);
      const notesGmailId = await g.idOf(sent[2]!);
      const archived = expectToolOk(
        await call('act_on_messages', {
          action: 'archive',
          items: [{ inboxId, messageId: lunch.messageId }],
        }),
      );
      expect(await labelsOf(lunchGmailId)).not.toContain('INBOX');
      expectToolOk(await call('undo_action', { undoId: archived['undoId'] }));
      expect(await labelsOf(lunchGmailId)).toContain('INBOX');

      const notes = bySubject('Project kumquat notes');
      expectToolOk(
        await call('apply_labels', { inboxId, messageIds: [notes.messageId], labelIds: ['Follow-up'] }),
      );
      const labels = (await api.users.labels.list({ userId: 'me' }, OTHER)).data.labels ?? [];
      const followUp = labels.find((l) => l.name === 'Follow-up');
      expect(followUp).toBeDefined();
      expect(await labelsOf(notesGmailId)).toContain(followUp!.id);
      const starred = expectToolOk(
        await call('star_messages', { inboxId, messageIds: [notes.messageId], starred: true }),
      );
      expect(await labelsOf(notesGmailId)).toContain('STARRED');
      expectToolOk(await call('undo_action', { undoId: starred['undoId'] }));
      expect(await labelsOf(notesGmailId)).not.toContain('STARRED');

      expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
      const full = expectToolOk(await call('get_message', { inboxId, messageId: lunch.messageId }));
      const draft = expectToolOk(
        await call('create_draft', {
          inboxId,
          to: 'ada@example.org',
          subject: 'Re: Lunch on Friday?',
          text: 'Friday works, see you at noon.',
          threadId: full['threadId'],
        }),
      );
      const drafts = (await api.users.drafts.list({ userId: 'me' }, OTHER)).data.drafts ?? [];
      expect(drafts).toHaveLength(1);
      const lunchThread = (
        await api.users.messages.get({ userId: 'me', id: lunchGmailId, format: 'minimal' }, OTHER)
      ).data.threadId;
      const written = await api.users.drafts.get({ userId: 'me', id: drafts[0]!.id!, format: 'full' }, OTHER);
      expect(written.data.message?.threadId).toBe(lunchThread);
      // From the name Gmail keeps for the primary send-as address, with nothing in Sent yet (decision 0088). Read as
      // written: the emulator's `full` format rebuilds the From header without its name.
      const raw = await api.users.drafts.get({ userId: 'me', id: drafts[0]!.id!, format: 'raw' }, OTHER);
      expect(Buffer.from(raw.data.message?.raw ?? '', 'base64url').toString()).toMatch(
        new RegExp(`^From: Pat Person <${g.google.user.replaceAll('.', '\\.')}>\r?$`, 'm'),
      );

      const approval = { pendingSendId: draft['pendingSendId'], approvalCode: draft['approvalCode'] };
      expect(
        expectToolOk(await call('send_draft', { ...approval, humanApprovedInChat: true })),
      ).toMatchObject({
        sent: true,
      });
      expectToolError(await call('send_draft', { ...approval, humanApprovedInChat: true }), 'approval_used');
      const inSent =
        (await api.users.messages.list({ userId: 'me', labelIds: ['SENT'] }, OTHER)).data.messages ?? [];
      expect(inSent).toHaveLength(1);
      expect(inSent[0]!.threadId).toBe(lunchThread);
      expect((await api.users.drafts.list({ userId: 'me' }, OTHER)).data.drafts ?? []).toHaveLength(0);
      expect(
        g.google.requests.filter((r) => r.method === 'POST' && /\/drafts\/send$/.test(r.path)),
      ).toHaveLength(1);
      expect(g.google.requests.some((r) => r.method === 'DELETE' && /\/messages\//.test(r.path))).toBe(false);
    });

    it('mail another client left in both Spam and Trash is in Trash only, read by history and by listing', async () => {
      // Two clients moving one message at once can leave it both labels (the emulator keeps both, as a late
      // modify may): the index holds it in one place, whichever way it learns of it.
      const { call } = g;
      const folders = expectToolOk(await call('list_folders', { inboxId }))['folders'] as {
        id: string;
        canonical: string | null;
      }[];
      const ids = folders
        .filter((f) => ['inbox', 'spam', 'trash'].includes(f.canonical ?? ''))
        .map((f) => f.id);
      const [a, b, c] = await Promise.all(
        [4, 5, 6].map(async (n) => g.idOf(await g.deliver(n, `Junk offer ${String(n)}`, ['SPAM', 'UNREAD']))),
      );
      const d = await g.idOf(await g.deliver(7, 'Junk offer 7'));
      expectToolOk(await call('sync_inbox', { inboxId, folders: ids }));
      const modify = (id: string | undefined, add: string[], remove: string[] = []) =>
        g.api.users.messages.modify(
          { userId: 'me', id: id ?? '', requestBody: { addLabelIds: add, removeLabelIds: remove } },
          OTHER,
        );
      const subjectsIn = async (folder: string) =>
        (
          expectToolOk(await call('list_messages', { inboxId, folder }))['messages'] as { subject: string }[]
        ).map((m) => m.subject);
      const where = async () => ({
        spam: (await subjectsIn('spam')).sort(),
        trash: (await subjectsIn('trash')).sort(),
        inbox: await subjectsIn('inbox'),
      });
      expect((await where()).spam).toEqual(['Junk offer 4', 'Junk offer 5', 'Junk offer 6']);

      // By history (the folders' cursors are current): 7 goes to Spam, then to Trash too.
      await modify(d, ['SPAM'], ['INBOX']);
      expectToolOk(await call('sync_inbox', { inboxId }));
      await modify(d, ['TRASH']);
      expect(await labelsOf(d)).toEqual(expect.arrayContaining(['SPAM', 'TRASH']));
      expectToolOk(await call('sync_inbox', { inboxId }));
      expect(await where()).toMatchObject({
        spam: ['Junk offer 4', 'Junk offer 5', 'Junk offer 6'],
        trash: ['Junk offer 7'],
      });

      // By listing: 4 goes to Trash too and 5 and 6 back to Inbox, and the history expires, so each folder is read
      // afresh (three known messages gone from a small Spam: its whole listing is read, not each message).
      await modify(a, ['TRASH']);
      await modify(b, ['INBOX'], ['SPAM']);
      await modify(c, ['INBOX'], ['SPAM']);
      const { historyId } = (await g.api.users.getProfile({ userId: 'me' }, OTHER)).data;
      g.google.expireHistoryBefore(String(BigInt(historyId ?? '0') + 1n));
      expectToolOk(await call('sync_inbox', { inboxId }));
      const listed = await where();
      expect(listed).toMatchObject({ spam: [], trash: ['Junk offer 4', 'Junk offer 7'] });
      expect(listed.inbox).toEqual(expect.arrayContaining(['Junk offer 5', 'Junk offer 6']));
      expect(listed.inbox).not.toContain('Junk offer 4');
      // And searches agree.
      const search = async (folder: string) =>
        (
          expectToolOk(await call('search_mailbox', { inboxId, query: 'Junk offer', folder }))[
            'messages'
          ] as {
            subject: string;
          }[]
        )
          .map((m) => m.subject)
          .sort();
      expect(await search('trash')).toEqual(['Junk offer 4', 'Junk offer 7']);
      expect(await search('spam')).toEqual([]);
    });
  },
);
