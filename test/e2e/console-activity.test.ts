import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { artifactPath } from '../rig/browser.ts';
import { buildMessage, seedMaildir, startDovecot, type Dovecot } from '../rig/index.ts';
import { consoleInChromium, seriousAccessibilityProblems } from '../support/console-browser.ts';
import { connectImapInbox, mailboxState } from '../support/imap-inbox.ts';
import { agentOf, expectToolOk, type toolCaller } from '../support/tool-caller.ts';

// Settings → Activity in Chromium against a real IMAP server: a change an agent made is described in words, and
// the person's Undo puts the mailbox back exactly (listed with a direct IMAP client before and after).
describe('the person undoes an agent’s change from Activity', () => {
  const USER = 'erin';
  const PASSWORD = 'erin-imap-password';
  let dovecot: Dovecot;
  const rig = consoleInChromium();
  let app: App;
  let page: Page;
  let call: ReturnType<typeof toolCaller>;
  let inboxId: string;

  beforeAll(async () => {
    ({ app, page } = rig);
    dovecot = await startDovecot({ users: { [USER]: PASSWORD } });
    await seedMaildir({
      maildir: dovecot.maildirOf(USER),
      messages: [1, 2, 3].map((i) => ({
        raw: buildMessage({
          from: { address: `sender${String(i)}@example.org`, name: `Sender ${String(i)}` },
          to: [{ address: `${USER}@example.test` }],
          subject: `Message ${String(i)}`,
          date: new Date(Date.UTC(2026, 9, i)),
          messageId: `<a${String(i)}@rig.test>`,
          text: `Body ${String(i)}`,
        }),
        flags: [],
        internalDate: new Date(Date.UTC(2026, 9, i)),
      })),
    });
    ({ call } = await agentOf(app, rig.web));
    inboxId = await connectImapInbox(app, call, { dovecot, user: USER, password: PASSWORD });
  }, 120_000);

  afterAll(async () => {
    await dovecot.stop();
  });

  it('shows the move in words, undoes it with one click, and records that you did', async () => {
    const before = await mailboxState(dovecot, USER, PASSWORD);
    const listed = expectToolOk(await call('list_messages', { inboxId, limit: 10 }))['messages'] as {
      messageId: string;
    }[];
    expectToolOk(await call('trash_message', { inboxId, messageId: listed[0]!.messageId }));
    expect(await mailboxState(dovecot, USER, PASSWORD)).not.toEqual(before);

    await page.goto(`${app.config.baseUrl}/settings/activity`);
    const row = page.locator('tr', { hasText: 'Moved 1 message from Inbox to Trash' });
    await expect.poll(() => row.count()).toBe(1);
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    await page.screenshot({ path: artifactPath('console-activity.png'), fullPage: true });

    await row.getByRole('button', { name: 'Undo' }).click();
    await page.waitForURL(/\/settings\/activity\?undone=1$/);
    expect(await page.getByRole('status').textContent()).toContain('Undone: 1 message put back.');
    expect(await mailboxState(dovecot, USER, PASSWORD)).toEqual(before);
    // The change can no longer be undone, and the undo is on record as yours.
    await expect.poll(() => row.getByRole('button', { name: 'Undo' }).count()).toBe(0);
    const mine = page.locator('tr', { hasText: 'Undid a change.' });
    expect(await mine.locator('td').nth(3).textContent()).toBe('You');
  });

  it('filters by tool and pages', async () => {
    for (let i = 0; i < 3; i++) expectToolOk(await call('list_inboxes'));
    await page.goto(`${app.config.baseUrl}/settings/activity?tool=list_inboxes`);
    expect(await page.locator('tbody tr').count()).toBeGreaterThanOrEqual(3);
    expect(await page.locator('tbody tr[data-tool]:not([data-tool="list_inboxes"])').count()).toBe(0);
    await page.goto(`${app.config.baseUrl}/settings/activity?tool=no_such_tool`);
    expect(await page.textContent('main')).toContain('No agent activity matches.');
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
  });
});
