import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import type { AccountId } from '../../src/core/accounts/account.ts';
import type { InboxId } from '../../src/core/inboxes/inbox.ts';
import { artifactPath } from '../rig/browser.ts';
import {
  consoleInChromium,
  PERSON_LOCALE,
  PERSON_ZONE,
  seriousAccessibilityProblems,
} from '../support/console-browser.ts';
import { agentOf, expectToolOk, type toolCaller } from '../support/tool-caller.ts';

// The Inboxes page in Chromium: the last sync and the messages in the window, errors in words with the fix, the
// folders to sync (changed here, read back from the store), and Add an inbox with its refusals next to the field.
describe('the person’s Inboxes page', () => {
  const rig = consoleInChromium({ config: { syncWindow: 40 } });
  let app: App;
  let page: Page;
  let call: ReturnType<typeof toolCaller>;
  let inboxId: string;
  let accountId: AccountId;

  beforeAll(async () => {
    ({ app, page } = rig);
    ({ call } = await agentOf(app, rig.web));
    accountId = (await app.stores.accounts.findByEmail('owner@example.test'))!.id;
    inboxId = (expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
    expectToolOk(await call('sync_inbox', { inboxId }));
  });

  it('shows the last sync and the window, and changes the folders to sync', async () => {
    await page.goto(`${app.config.baseUrl}/inboxes`);
    const card = page.locator(`[data-inbox-id="${inboxId}"]`);
    expect(((await card.locator('.sync-state').textContent()) ?? '').replace(/\s+/g, ' ')).toMatch(
      /Last synced .+ · 40 messages in the window\./,
    );
    // In the person's zone and language, the UTC time kept as the title.
    const time = card.locator('.sync-state time');
    const at = new Date((await time.getAttribute('datetime')) ?? '');
    expect(await time.textContent()).toBe(
      at.toLocaleString(PERSON_LOCALE, { timeZone: PERSON_ZONE, dateStyle: 'medium', timeStyle: 'short' }),
    );
    expect(await time.getAttribute('title')).toBe(`${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`);
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    await page.screenshot({ path: artifactPath('console-inboxes.png'), fullPage: true });

    await card.getByLabel(/Archive/).check();
    await card.getByRole('button', { name: 'Sync these folders' }).click();
    await page.waitForURL(/done=folders/);
    const selected = (await app.stores.folders.list(inboxId as InboxId))
      .filter((f) => f.selected)
      .map((f) => f.canonical);
    expect(selected.sort()).toEqual(['archive', 'inbox']);
    // Unticking everything is refused: an inbox syncs at least one folder.
    for (const box of await page.locator(`[data-inbox-id="${inboxId}"] input[name="folder"]`).all())
      await box.uncheck();
    await page
      .locator(`[data-inbox-id="${inboxId}"]`)
      .getByRole('button', { name: 'Sync these folders' })
      .click();
    await page.waitForURL(/\/inboxes(#.*)?$/);
    expect((await app.stores.folders.list(inboxId as InboxId)).filter((f) => f.selected)).toHaveLength(2);
  });

  it('says what is wrong, with the fix', async () => {
    const added = expectToolOk(
      await call('add_inbox', {
        label: 'Work',
        provider: 'imap',
        email: 'me@example.test',
        imapHost: 'imap.example.test',
      }),
    );
    const id = (added['inbox'] as { id: string }).id;
    const inbox = await app.stores.inboxes.get(accountId, id as InboxId);
    await app.services.tools.inboxes.markNeedsReconnect(inbox!, 'AUTHENTICATIONFAILED', app.clock.now());
    await page.goto(`${app.config.baseUrl}/inboxes`);
    const card = page.locator(`[data-inbox-id="${id}"]`);
    expect(await card.locator('.problem').textContent()).toContain(
      'refused the stored password. Enter the password again',
    );
    expect(await card.getByRole('button', { name: 'Enter password' }).count()).toBe(1);
  });

  it('Add an inbox: refusals next to the field and nothing added; a good one goes to the password page', async () => {
    const count = async () => (await app.stores.inboxes.list(accountId)).length;
    const before = await count();
    await page.goto(`${app.config.baseUrl}/inboxes`);
    const submit = async (v: Record<string, string>) => {
      for (const [name, value] of Object.entries(v)) await page.locator(`#add-${name}`).fill(value);
      await page.getByRole('button', { name: 'Add and connect' }).click();
    };
    await submit({ label: 'Home', email: 'not-an-address', imapHost: 'imap.example.test' });
    expect(await page.locator('#add-email-error').textContent()).toContain('email must be a valid address');
    expect(await page.locator('#add-email').getAttribute('aria-describedby')).toBe('add-email-error');
    await submit({ label: 'Home', email: 'me@home.test', imapHost: 'not a host!' });
    expect(await page.locator('#add-imapHost-error').textContent()).toContain('imapHost must be a host name');
    await submit({ label: 'Home', email: 'me@home.test', imapHost: 'imap.home.test', imapPort: '99999' });
    expect(await page.locator('#add-imapPort-error').textContent()).toContain(
      'imapPort must be between 1 and 65535',
    );
    expect(await count()).toBe(before);
    await submit({ label: 'Home', email: 'me@home.test', imapHost: 'imap.home.test', imapPort: '993' });
    await page.waitForURL(/\/connect\/imap/);
    expect(await count()).toBe(before + 1);
    expect(await page.locator('input[type="password"]').count()).toBe(1);
    // The same mailbox again: the password page of the inbox already there, nothing added (decision 0043).
    const first = page.url();
    await page.goto(`${app.config.baseUrl}/inboxes`);
    await submit({ label: 'Home again', email: 'Me@home.test', imapHost: 'imap.home.test', imapPort: '993' });
    await page.waitForURL(/\/connect\/imap/);
    expect(page.url()).not.toBe(first);
    expect(await count()).toBe(before + 1);
    expect(await page.locator('main').textContent()).toContain('Connect me@home.test');
    // The owner, signed in, sees both servers the password goes to, and may change them here (decision 0095).
    expect(await page.getByLabel('Incoming mail (IMAP) server').inputValue()).toBe('imap.home.test');
    expect(await page.getByLabel('Outgoing mail (SMTP) server').inputValue()).toBe('smtp.home.test');
    expect(await page.getByLabel('Its port (587, or 465)').inputValue()).toBe('587');
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
  });
});
