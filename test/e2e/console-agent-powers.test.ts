import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { artifactPath } from '../rig/browser.ts';
import { addWorkInbox } from '../support/agent-rpc.ts';
import { consoleInChromium, seriousAccessibilityProblems } from '../support/console-browser.ts';
import { mcp2025Headers } from '../support/tool-caller.ts';

// Decisions 0141 and 0142 in Chromium: the person makes a key that may only write drafts, by the boxes' labels as
// anyone reading the page (or a screen reader) finds them, and later lets it tidy too; and one that reaches only one
// inbox. The key's agent sees each at once.
describe('the person chooses what a key’s agent may do', () => {
  const rig = consoleInChromium();
  let app: App;
  let page: Page;
  beforeAll(() => {
    ({ app, page } = rig);
  });

  const toolNames = async (key: string) => {
    const res = await fetch(`${app.config.baseUrl}/mcp`, {
      method: 'POST',
      headers: mcp2025Headers(key),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const text = await res.text();
    return (
      JSON.parse(text.slice(text.indexOf('{'))) as { result: { tools: { name: string }[] } }
    ).result.tools.map((t) => t.name);
  };

  it('a key made to write drafts only, then allowed to tidy', async () => {
    await page.goto(`${app.config.baseUrl}/settings/advanced`);
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    await page.getByLabel('Name for a new key').fill('Drafter');
    // Every box starts checked: a key holds everything unless the person takes some away.
    for (const label of [/^Tidy mail/, /^Screen junk/, /^Unsubscribe/, /^Add inboxes/])
      await page.getByRole('checkbox', { name: label }).uncheck();
    expect(await page.getByRole('checkbox', { name: /^Write drafts/ }).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent())!.trim();
    const row = page.locator('tr', { hasText: 'Drafter' });
    expect(await row.textContent()).toContain('reading, drafts');
    const names = await toolNames(key);
    expect(names).toContain('create_draft');
    expect(names).not.toContain('archive_messages');

    await row.locator('summary', { hasText: 'Change' }).click();
    await row.getByRole('checkbox', { name: /^Tidy mail/ }).check();
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    await page.screenshot({ path: artifactPath('console-agent-powers.png'), fullPage: true });
    await row.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/done=powers/);
    expect(await page.locator('tr', { hasText: 'Drafter' }).textContent()).toContain('reading, tidy, drafts');
    expect(await toolNames(key)).toContain('archive_messages');
  });

  // Decision 0142: which inboxes, chosen the same way. Ticking an inbox chooses "only the inboxes ticked".
  it('a key that reaches only the Work inbox', async () => {
    const workId = await addWorkInbox(app);
    await app.services.accounts.setPlan('owner@example.test', 'pro');
    await page.goto(`${app.config.baseUrl}/settings/advanced`);
    const form = page.locator('form', { has: page.getByRole('button', { name: 'Create key' }) });
    await form.getByLabel('Name for a new key').fill('Work helper');
    expect(await form.getByRole('radio', { name: /^Every inbox/ }).isChecked()).toBe(true);
    await form.getByRole('checkbox', { name: /^Work \(me@work\.example\.test\)/ }).check();
    expect(await form.getByRole('radio', { name: /^Only the inboxes ticked/ }).isChecked()).toBe(true);
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    await form.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent())!.trim();
    expect(await page.locator('tr', { hasText: 'Work helper' }).textContent()).toContain('only Work');
    const res = await fetch(`${app.config.baseUrl}/mcp`, {
      method: 'POST',
      headers: mcp2025Headers(key),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'list_inboxes', arguments: {} },
      }),
    });
    const text = await res.text();
    const result = (
      JSON.parse(text.slice(text.indexOf('{'))) as {
        result: { structuredContent: { inboxes: { id: string }[] } };
      }
    ).result;
    expect(result.structuredContent.inboxes.map((i) => i.id)).toEqual([workId]);
    // Choosing every inbox again clears the ticks.
    const change = page.locator('tr', { hasText: 'Work helper' });
    await change.locator('summary', { hasText: 'Change' }).click();
    await change.getByRole('radio', { name: /^Every inbox/ }).check();
    expect(await change.getByRole('checkbox', { name: /^Work \(/ }).isChecked()).toBe(false);
  });
});
