import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { DemoMailbox } from '../../src/adapters/mail/demo/demo-mailbox.ts';
import type { App } from '../../src/app.ts';
import type { AccountId } from '../../src/core/accounts/account.ts';
import { artifactPath } from '../rig/browser.ts';
import { consoleInChromium, seriousAccessibilityProblems } from '../support/console-browser.ts';
import { agentOf, expectToolError, expectToolOk, type toolCaller } from '../support/tool-caller.ts';

// Waiting for you, in Chromium on the demo inbox: a send an agent asked for is shown with who asked; the person's
// Send sends it exactly once (a replayed form sends nothing more), and Discard makes the agent's code useless. And
// Screened, where the person decides on what an agent screened.
describe('the person decides what agents asked for', () => {
  const rig = consoleInChromium();
  let app: App;
  let page: Page;
  let call: ReturnType<typeof toolCaller>;
  let inboxId: string;
  let accountId = '';
  const accountOf = () => accountId as AccountId;
  const sent = () => new DemoMailbox(app.db, inboxId).rows('Sent').then((r) => r.length);

  beforeAll(async () => {
    ({ app, page } = rig);
    ({ call } = await agentOf(app, rig.web));
    inboxId = (expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
    accountId = (await app.stores.accounts.findByEmail('owner@example.test'))!.id;
    expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
  });

  const draft = async (subject: string) =>
    expectToolOk(
      await call('create_draft', { inboxId, to: 'sam@example.test', subject, text: 'See you Friday.' }),
    );

  it('Send sends exactly once, even when the form is sent again', async () => {
    const offered = await draft('Lunch on Friday');
    const before = await sent();
    await page.goto(`${app.config.baseUrl}/waiting`);
    const card = page.locator(`[data-pending-send="${String(offered['pendingSendId'])}"]`);
    expect(await card.textContent()).toContain('asked by API key “agent”');
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    await page.screenshot({ path: artifactPath('console-waiting.png'), fullPage: true });

    const form = {
      _csrf: (await card.locator('form[action="/waiting/send"] input[name="_csrf"]').getAttribute('value'))!,
      id: String(offered['pendingSendId']),
    };
    await card.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(/done=sent/);
    expect(await sent()).toBe(before + 1);
    // The same form posted again (a double click, the back button): nothing more is sent.
    const again = await page.request.post(`${app.config.baseUrl}/waiting/send`, {
      form,
      headers: { origin: app.config.baseUrl },
      maxRedirects: 0,
    });
    expect(again.status()).toBe(303);
    expect(again.headers()['location']).toBe('/waiting?error=approval_used');
    expect(await sent()).toBe(before + 1);
    // And the agent's own code for it is used up too.
    expectToolError(
      await call('send_draft', {
        pendingSendId: offered['pendingSendId'],
        approvalCode: offered['approvalCode'],
        humanApprovedInChat: true,
      }),
      'approval_used',
    );
  });

  it('Discard leaves the draft unsent, and the agent’s code no longer sends it', async () => {
    const offered = await draft('Never mind');
    const before = await sent();
    await page.goto(`${app.config.baseUrl}/waiting`);
    await page
      .locator(`[data-pending-send="${String(offered['pendingSendId'])}"]`)
      .getByRole('button', { name: 'Discard' })
      .click();
    await page.waitForURL(/done=discarded/);
    expect(await page.locator(`[data-pending-send="${String(offered['pendingSendId'])}"]`).count()).toBe(0);
    expectToolError(
      await call('send_draft', {
        pendingSendId: offered['pendingSendId'],
        approvalCode: offered['approvalCode'],
        humanApprovedInChat: true,
      }),
      'approval_used',
    );
    expect(await sent()).toBe(before);
  });

  it('an unsubscribe an agent proposed: one request from the app, none more from a replayed form or the code', async () => {
    expectToolOk(await call('sync_inbox', { inboxId }));
    const rows = expectToolOk(await call('review_unsubscribes', { inbox: inboxId, limit: 100 }))[
      'senders'
    ] as {
      messageId: string;
      oneClickAdvertised: boolean;
    }[];
    const list = rows.find((r) => r.oneClickAdvertised)!;
    const proposed = expectToolOk(await call('propose_unsubscribe', { inboxId, messageId: list.messageId }));
    const id = String(proposed['pendingUnsubscribeId']);
    await page.goto(`${app.config.baseUrl}/waiting`);
    const card = page.locator(`[data-pending-unsubscribe="${id}"]`);
    expect(await card.textContent()).toContain('asked by API key “agent”');
    const form = {
      _csrf: (await card
        .locator('form[action="/waiting/unsubscribe"] input[name="_csrf"]')
        .getAttribute('value'))!,
      id,
    };
    await card.getByRole('button', { name: 'Unsubscribe' }).click();
    await page.waitForURL(/done=unsubscribed/);
    const status = async () => (await app.stores.pendingUnsubscribes.get(accountOf(), id))?.status;
    expect(await status()).toBe('done');
    const again = await page.request.post(`${app.config.baseUrl}/waiting/unsubscribe`, {
      form,
      headers: { origin: app.config.baseUrl },
      maxRedirects: 0,
    });
    expect(again.headers()['location']).toBe('/waiting?error=approval_used');
    expectToolError(
      await call('confirm_unsubscribe', {
        pendingUnsubscribeId: id,
        approvalCode: proposed['approvalCode'],
        humanApprovedInChat: true,
      }),
      'approval_used',
    );
  });

  it('Screened: the person rescues what an agent screened by the row’s own button, and reports another', async () => {
    expectToolOk(await call('sync_inbox', { inboxId }));
    const offered = expectToolOk(await call('screen_junk', {}))['messages'] as {
      inboxId: string;
      messageId: string;
      subject: string;
      authentication: { dmarc: string };
    }[];
    // Two whose From the receiving server found forged: what an agent would screen.
    const [kept, junk] = offered.filter((m) => m.subject !== '' && m.authentication.dmarc === 'fail');
    expectToolOk(
      await call('confirm_screening', {
        verdicts: [kept!, junk!].map((m) => ({
          inboxId: m.inboxId,
          messageId: m.messageId,
          verdict: 'junk',
        })),
      }),
    );
    await page.goto(`${app.config.baseUrl}/screened`);
    expect(await page.locator('[data-screened-total]').textContent()).toContain('2 messages screened');
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    await page.screenshot({ path: artifactPath('console-screened.png'), fullPage: true });
    await page.getByRole('button', { name: `Rescue: ${kept!.subject}` }).click();
    await page.waitForURL(/done=rescued/);
    expect(await page.getByRole('status').textContent()).toContain('back in your inbox');
    await page.getByRole('button', { name: `Report: ${junk!.subject}` }).click();
    await page.waitForURL(/done=reported_/);
    expect(await page.locator('[data-screened-total]').textContent()).toContain('Nothing was screened');
    const inInbox = expectToolOk(await call('list_messages', { inboxId, folder: 'inbox', limit: 200 }))[
      'messages'
    ] as { messageId: string }[];
    expect(inInbox.map((m) => m.messageId)).toContain(kept!.messageId);
  });
});
