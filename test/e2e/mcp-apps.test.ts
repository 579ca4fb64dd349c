import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoMailbox } from '../../src/adapters/mail/demo/demo-mailbox.ts';
import type { App } from '../../src/app.ts';
import { silentLogger } from '../../src/lib/logger.ts';
import { listen, type RunningServer } from '../../src/transports/http/serve.ts';
import { openTestHost } from '../rig/apps-host/index.ts';
import type { ViewCall } from '../rig/apps-host/host.ts';
import { artifactPath, launchBrowser } from '../rig/browser.ts';
import { freePort } from '../rig/index.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolOk, type toolCaller } from '../support/tool-caller.ts';
import type { WebClient } from '../support/web-client.ts';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Host {
  open(
    name: string,
    args: Record<string, unknown>,
    context?: Record<string, unknown>,
  ): Promise<{ uri: string; mimeType: string | undefined; bytes: number }>;
  calls: ViewCall[];
  modelTools(): string[];
}

// The four views in a strict MCP Apps host (test/rig/apps-host): headless Chromium, ext-apps' AppBridge and the v2
// client over the real /mcp with an API key, the demo inbox. Each view renders its tool's result, shows the right
// data, and its buttons work; a screenshot of each goes to test-artifacts/ (copied to docs/screens/).
describe('interactive views in a strict MCP Apps host', () => {
  let app: App;
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let call: ReturnType<typeof toolCaller>;
  let inboxId: string;
  let web: WebClient;

  const host = () => page.evaluate(() => (window as unknown as { host: Host }).host.calls);
  const open = (name: string, args: Record<string, unknown> = {}, context: Record<string, unknown> = {}) =>
    page.evaluate(([n, a, c]) => (window as unknown as { host: Host }).host.open(n, a, c), [
      name,
      args,
      context,
    ] as const);
  const view = () => page.frameLocator('#view');
  const frame = (): Frame => page.frames().find((f) => f !== page.mainFrame())!;
  const lastCall = async (name: string) => (await host()).filter((c) => c.name === name).at(-1);
  const shot = (name: string) =>
    page.locator('#view').screenshot({ path: artifactPath(`view-${name}.png`), animations: 'disabled' });

  beforeAll(async () => {
    const port = await freePort();
    browser = await launchBrowser();
    const baseUrl = `http://127.0.0.1:${String(port)}`;
    // The host page is served at the service's own origin, so its browser client sends that Origin.
    app = await createTestApp({ config: { baseUrl, mcpAllowedOrigins: [baseUrl], syncWindow: 40 } });
    server = await listen(app.fetch, { host: '127.0.0.1', port, log: silentLogger });
    const agent = await agentOn(app);
    call = agent.call;
    web = agent.web;
    inboxId = (expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
    expectToolOk(await call('sync_inbox', { inboxId }));
    page = await browser.newPage({ viewport: { width: 720, height: 900 } });
    page.setDefaultTimeout(15_000);
    await openTestHost(page, app.config.baseUrl, agent.key);
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await server.close(1000);
    await app.close();
  });

  it('serves each view as text/html;profile=mcp-app at a ui:// address whose hash is of its bytes', async () => {
    const opened = await open('show_inbox', { inboxId });
    expect(opened.mimeType).toBe('text/html;profile=mcp-app');
    expect(opened.uri).toMatch(/^ui:\/\/inbox-triage\/triage-[0-9a-f]{12}\.html$/);
    const html = await page.locator('#view').getAttribute('srcdoc');
    expect(html).not.toBeNull();
    // The host injected its CSP meta after <head>; the service's own bytes hash to the address.
    const own = html!.replace(
      /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self'[^>]*>/,
      '',
    );
    expect(createHash('sha256').update(own).digest('hex').slice(0, 12)).toBe(opened.uri.slice(-17, -5));
  });

  it('show_inbox: the synced messages, Archive with Undo, Star — each the model’s own tool through the host', async () => {
    const host = {
      theme: 'dark',
      styles: { variables: { '--color-background-primary': 'rgb(10, 20, 30)' } },
    };
    await open('show_inbox', { inboxId, limit: 10 }, host);
    const rows = view().locator('li[data-message-id]');
    await expect.poll(() => rows.count()).toBe(10);
    // The host's theme and style variables reach the view.
    expect(await frame().evaluate('document.documentElement.dataset.theme')).toBe('dark');
    expect(await frame().evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(10, 20, 30)');
    const listed = expectToolOk(await call('list_messages', { inboxId, limit: 10 }))['messages'] as {
      messageId: string;
      subject: string;
      starred: boolean;
    }[];
    expect(await rows.first().getAttribute('data-message-id')).toBe(listed[0]!.messageId);
    await expect.poll(() => rows.first().locator('.subject').textContent()).toBe(listed[0]!.subject);
    await shot('triage');

    const target = listed[1]!.messageId;
    const row = view().locator(`li[data-message-id="${target}"]`);
    await row.getByRole('button', { name: /^Archive:/ }).click();
    await expect.poll(() => row.textContent()).toContain('Archived');
    expect(await lastCall('act_on_messages')).toMatchObject({
      outcome: 'ok',
      arguments: { action: 'archive' },
    });
    const folderOf = async () =>
      (expectToolOk(await call('get_message', { inboxId, messageId: target }))['folder'] as
        string | undefined) ?? '';
    expect(await folderOf()).not.toMatch(/inbox/i);
    await row.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(async () => (await lastCall('undo_action'))?.outcome).toBe('ok');
    await expect.poll(folderOf).toMatch(/inbox/i);

    const unstarred = listed.find((m, i) => i > 1 && !m.starred)!;
    const other = view().locator(`li[data-message-id="${unstarred.messageId}"]`);
    await other.getByRole('button', { name: /^Star:/ }).click();
    await expect.poll(() => other.getByRole('button', { name: /^Unstar:/ }).count()).toBe(1);
    const starred = expectToolOk(await call('get_message', { inboxId, messageId: unstarred.messageId }));
    expect(starred['starred']).toBe(true);
  });

  it('show_draft: the card shows the draft; Send saves the edit and sends exactly one message', async () => {
    expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
    const created = expectToolOk(
      await call('create_draft', {
        inboxId,
        to: 'sam@example.test',
        subject: 'Lunch on Friday',
        text: 'Noon?',
      }),
    );
    const draftId = (created['draft'] as { id: string }).id;
    const sentBefore = await new DemoMailbox(app.db, inboxId).rows('Sent');
    await open('show_draft', { inboxId, draftId });
    await expect.poll(() => view().getByLabel('To').inputValue()).toBe('sam@example.test');
    expect(await view().getByLabel('Subject').inputValue()).toBe('Lunch on Friday');
    expect(await view().getByLabel('Text').inputValue()).toBe('Noon?');
    await shot('draft');

    await view().getByLabel('Text').fill('Half past twelve?');
    await view().getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => view().locator('#status').textContent()).toBe('Sent.');
    const names = (await host()).map((c) => `${c.name}:${c.outcome}`);
    expect(names.slice(-2)).toEqual(['update_draft_from_card:ok', 'send_draft_from_card:ok']);
    const sent = await new DemoMailbox(app.db, inboxId).rows('Sent');
    expect(sent.length).toBe(sentBefore.length + 1);
    const mine = sent.map((r) => JSON.stringify(r.doc)).filter((d) => d.includes('Lunch on Friday'));
    expect(mine).toHaveLength(1);
    expect(mine[0]).toContain('Half past twelve?');
    // The approval code create_draft gave the agent covered the old text: it sends nothing now.
    const late = await call('send_draft', {
      pendingSendId: created['pendingSendId'],
      approvalCode: created['approvalCode'],
      humanApprovedInChat: true,
    });
    expect(late.isError).toBe(true);
    expect((await new DemoMailbox(app.db, inboxId).rows('Sent')).length).toBe(sent.length);
  });

  it('show_draft: a character that shows nothing is pointed out on the card until the person edits it away (decision 0112)', async () => {
    const created = expectToolOk(
      await call('create_draft', { inboxId, to: 'sam@example.test', subject: 'Unseen', text: 'Noon\u200b?' }),
    );
    await open('show_draft', { inboxId, draftId: (created['draft'] as { id: string }).id });
    const warning = view().locator('#unseen');
    await expect.poll(() => warning.isVisible()).toBe(true);
    expect(await warning.textContent()).toMatch(/^This draft holds 1 character that shows nothing/);
    await view().getByLabel('Text').fill('Noon?');
    await view().getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => view().locator('#status').textContent()).toBe('Saved to your Drafts folder.');
    expect(await warning.isVisible()).toBe(false);
  });

  it('a view cannot call a tool that is not for apps: the strict host refuses send_draft', async () => {
    const created = expectToolOk(
      await call('create_draft', { inboxId, to: 'sam@example.test', subject: 'Not from a view', text: 'x' }),
    );
    await open('show_draft', { inboxId, draftId: (created['draft'] as { id: string }).id });
    await expect.poll(() => view().getByLabel('Subject').inputValue()).toBe('Not from a view');
    // As a view's own script would: Kit is the views' shared bridge (src/transports/mcp/views/kit.js).
    const args = {
      pendingSendId: created['pendingSendId'],
      approvalCode: created['approvalCode'],
      humanApprovedInChat: true,
    };
    const r = await frame().evaluate(`Kit.call('send_draft', ${JSON.stringify(args)})`);
    expect(r).toMatchObject({ ok: false, error: 'host_refused' });
    expect(await lastCall('send_draft')).toMatchObject({ outcome: 'refused' });
    const modelTools = await page.evaluate(() => (window as unknown as { host: Host }).host.modelTools());
    expect(modelTools).not.toContain('send_draft_from_card');
    expect(modelTools).not.toContain('update_draft_from_card');
    expect(modelTools).toContain('send_draft');
  });

  it('review_unsubscribes: the senders; Unsubscribe proposes, Confirm sends the one request', async () => {
    await open('review_unsubscribes', { inbox: inboxId });
    const rows = view().locator('li[data-message-id]');
    await expect.poll(() => rows.count()).toBeGreaterThan(0);
    const senders = expectToolOk(await call('review_unsubscribes', { inbox: inboxId }))['senders'] as {
      messageId: string;
      oneClickAdvertised: boolean;
    }[];
    expect(await rows.count()).toBe(senders.length);
    await shot('unsubscribes');
    const oneClick = senders.find((s) => s.oneClickAdvertised)!;
    const row = view().locator(`li[data-message-id="${oneClick.messageId}"]`);
    await row.getByRole('button', { name: /^Unsubscribe from/ }).click();
    await expect.poll(async () => (await lastCall('propose_unsubscribe'))?.outcome).toBe('ok');
    await row.getByRole('button', { name: /^Confirm unsubscribing/ }).click();
    await expect.poll(async () => (await lastCall('confirm_unsubscribe'))?.outcome).toBe('ok');
    await expect.poll(() => row.textContent()).toMatch(/Unsubscribed|refused|no answer/);
  });

  it('show_screened: the screened rows, a period picker, Rescue and Report move the mail', async () => {
    const batch = expectToolOk(await call('screen_junk', { inbox: inboxId }))['messages'] as {
      inboxId: string;
      messageId: string;
    }[];
    const [a, b] = batch;
    expectToolOk(
      await call('confirm_screening', {
        verdicts: [
          { inboxId: a!.inboxId, messageId: a!.messageId, verdict: 'junk', reason: 'look-alike domain' },
          { inboxId: b!.inboxId, messageId: b!.messageId, verdict: 'junk', reason: 'prize scam' },
        ],
      }),
    );
    await open('show_screened', { days: 30 });
    const rows = view().locator('li[data-screened-id]');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await view().getByLabel('Period').inputValue()).toBe('30');
    await shot('screened');

    await view().getByLabel('Period').selectOption('7');
    await expect.poll(async () => (await lastCall('show_screened'))?.arguments).toMatchObject({ days: 7 });
    await expect.poll(() => rows.count()).toBe(2);
    const shown = expectToolOk(await call('review_screened', { days: 7 }))['rows'] as {
      id: string;
      messageId: string;
    }[];
    const ids = await rows.evaluateAll((li) => li.map((l) => l.getAttribute('data-screened-id')));
    expect(ids).toEqual(shown.map((r) => r.id));
    await rows
      .nth(0)
      .getByRole('button', { name: /^Rescue:/ })
      .click();
    await expect.poll(async () => (await lastCall('rescue_screened'))?.outcome).toBe('ok');
    await rows
      .nth(1)
      .getByRole('button', { name: /^Report:/ })
      .click();
    await expect.poll(async () => (await lastCall('report_screened'))?.outcome).toBe('ok');
    // Each row says what its tool did, in the tool's words: what was blocked, if anything.
    await expect.poll(() => rows.nth(1).textContent()).toMatch(/^I moved the message to Spam and blocked /);
    expect(await rows.nth(0).textContent()).toMatch(/^I moved the message back to your inbox/);
    const review = expectToolOk(await call('review_screened', { inbox: inboxId, days: 30 }));
    expect(review['counts']).toMatchObject({ waiting: 0, rescued: 1, reported: 1 });
    const folder = async (messageId: string) =>
      expectToolOk(await call('get_message', { inboxId, messageId }))['folder'];
    expect(await folder(shown[0]!.messageId)).toBe('inbox');
    expect(await folder(shown[1]!.messageId)).toBe('spam');
  });

  it('every view: no axe violations, fits 360 px without sideways scrolling, usable from the keyboard', async () => {
    const created = expectToolOk(
      await call('create_draft', { inboxId, to: 'kim@example.test', subject: 'Keys only', text: 'Typed.' }),
    );
    const draftId = (created['draft'] as { id: string }).id;
    await page.setViewportSize({ width: 360, height: 800 });
    const views: [string, Record<string, unknown>, string][] = [
      ['show_inbox', { inboxId, limit: 5 }, 'li[data-message-id]'],
      ['show_draft', { inboxId, draftId }, '#to'],
      ['review_unsubscribes', {}, 'li[data-message-id]'],
      ['show_screened', { days: 30 }, 'h1'],
    ];
    for (const [tool, args, ready] of views) {
      await open(tool, args);
      await view().locator(ready).first().waitFor();
      const f = frame();
      await f.evaluate(AXE);
      const axe = await f.evaluate<{ passes: number; violations: string[] }>(
        `axe.run(document, { runOnly: ['wcag2a', 'wcag2aa'] }).then((r) => ({ passes: r.passes.length, violations: r.violations.map((v) => v.id + ': ' + v.nodes.length) }))`,
      );
      expect(axe.violations, tool).toEqual([]);
      expect(axe.passes, `${tool}: axe checked something`).toBeGreaterThan(5);
      const overflow = await f.evaluate<number>(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      expect(overflow, tool).toBeLessThanOrEqual(0);
    }
    // The draft card from the keyboard alone: type into Subject, Tab to Save, press Enter.
    await open('show_draft', { inboxId, draftId });
    await view().getByLabel('Subject').focus();
    await page.keyboard.press('End');
    await page.keyboard.type(' (edited)');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await frame().evaluate('document.activeElement.id')).toBe('save');
    await page.keyboard.press('Enter');
    await expect.poll(() => view().locator('#status').textContent()).toBe('Saved to your Drafts folder.');
    expect(expectToolOk(await call('show_draft', { inboxId, draftId }))['draft']).toMatchObject({
      subject: 'Keys only (edited)',
    });
    await page.setViewportSize({ width: 720, height: 900 });
  });

  // Decision 0141: a view offers only what the person lets its agent do — no buttons that would be refused.
  it('an agent that may only read gets the inbox and Screened without their buttons', async () => {
    await web.get('/settings/advanced');
    await web.post('/settings/advanced/keys', { name: 'reader', choosing_powers: '1' });
    await web.get('/settings/advanced');
    const readerKey = /itk_[a-z0-9]{40}/.exec(web.lastHtml)![0];
    const reader = await browser.newPage({ viewport: { width: 720, height: 900 } });
    reader.setDefaultTimeout(15_000);
    await openTestHost(reader, app.config.baseUrl, readerKey);
    const openAs = (name: string, args: Record<string, unknown>) =>
      reader.evaluate(([n, a]) => (window as unknown as { host: Host }).host.open(n, a), [
        name,
        args,
      ] as const);
    const readerView = () => reader.frameLocator('#view');

    await openAs('show_inbox', { inboxId, limit: 5 });
    await expect.poll(() => readerView().locator('li[data-message-id]').count()).toBe(5);
    expect(
      await readerView()
        .getByRole('button', { name: /^(Archive|Trash|Spam|Star|Unstar):/ })
        .count(),
    ).toBe(0);
    const [junk] = expectToolOk(await call('screen_junk', { inbox: inboxId }))['messages'] as {
      inboxId: string;
      messageId: string;
    }[];
    expectToolOk(
      await call('confirm_screening', {
        verdicts: [
          { inboxId: junk!.inboxId, messageId: junk!.messageId, verdict: 'junk', reason: 'prize scam' },
        ],
      }),
    );
    await openAs('show_screened', { days: 30 });
    await expect.poll(() => readerView().locator('li[data-screened-id]').count()).toBeGreaterThan(0);
    expect(
      await readerView()
        .getByRole('button', { name: /^(Rescue|Report):/ })
        .count(),
    ).toBe(0);
    // The same views for the agent that may do everything keep them.
    await open('show_inbox', { inboxId, limit: 5 });
    await expect
      .poll(() =>
        view()
          .getByRole('button', { name: /^Archive:/ })
          .count(),
      )
      .toBe(5);
    await reader.close();
  });

  it('a failed tool result renders as words, not a blank frame', async () => {
    await open('show_draft', { inboxId, draftId: 'draft_00000000000000000000' });
    await expect.poll(() => view().getByRole('alert').textContent()).toMatch(/No draft with this id/);
  });
});
