import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import type { AccountId } from '../../src/core/accounts/account.ts';
import { wholeAccount } from '../../src/core/auth/inbox-reach.ts';
import { artifactPath } from '../rig/browser.ts';
import { consoleInChromium, seriousAccessibilityProblems } from '../support/console-browser.ts';

// Settings → Sending, VIPs and triage in Chromium: every form refuses bad input with the message next to the
// field and changes nothing (read back from the services), and saves good input exactly as the tools would.
describe('the person’s own settings in the console', () => {
  const rig = consoleInChromium();
  let app: App;
  let page: Page;
  let accountId: AccountId;
  const state = async () => ({
    sending: await app.services.tools.sending.isEnabled(accountId),
    vips: await app.services.tools.vips.list(accountId),
    profile: await app.services.tools.profiles.get(accountId),
  });

  beforeAll(async () => {
    ({ app, page } = rig);
    accountId = (await app.stores.accounts.findByEmail('owner@example.test'))!.id;
  });

  const open = async () => {
    await page.goto(`${app.config.baseUrl}/settings/preferences`);
  };
  /** Submits, then expects the 400 page with `message` next to `field` and nothing changed. */
  async function refused(submit: () => Promise<void>, field: string, message: RegExp): Promise<void> {
    const before = await state();
    const answered = page.waitForResponse((r) => r.request().method() === 'POST');
    await submit();
    expect((await answered).status()).toBe(400);
    const error = page.locator(`#${field}-error`);
    expect(await error.textContent()).toMatch(message);
    expect(await page.locator(`#${field}`).getAttribute('aria-describedby')).toBe(`${field}-error`);
    expect(await state()).toEqual(before);
  }

  it('every console page passes the accessibility check', async () => {
    for (const path of [
      '/settings',
      '/settings/preferences',
      '/settings/activity',
      '/settings/advanced',
      '/settings/agents',
      '/settings/delete',
      '/settings/password',
      '/settings/browsers',
      '/waiting',
      '/screened',
      '/inboxes',
    ]) {
      await page.goto(`${app.config.baseUrl}${path}`);
      expect(await seriousAccessibilityProblems(page), path).toEqual([]);
    }
  });

  it('VIPs: a bad entry is refused next to the field; an address and a domain are added and removed', async () => {
    await open();
    await refused(
      async () => {
        await page.getByLabel('Add an address or a domain').fill('not an address!');
        await page.getByRole('button', { name: 'Add VIP' }).click();
      },
      'vip',
      /email address .* or a bare domain/,
    );
    await page.getByLabel('Add an address or a domain').fill('Boss@Corp.test');
    await page.getByRole('button', { name: 'Add VIP' }).click();
    await page.waitForURL(/saved=vip/);
    await page.getByLabel('Add an address or a domain').fill('family.test');
    await page.getByRole('button', { name: 'Add VIP' }).click();
    await page.waitForURL(/saved=vip/);
    expect((await state()).vips.map((v) => v.value).sort()).toEqual(['boss@corp.test', 'family.test']);
    await page.getByRole('button', { name: 'Remove family.test' }).click();
    await page.waitForURL(/saved=vip/);
    expect((await state()).vips.map((v) => v.value)).toEqual(['boss@corp.test']);
  });

  it('triage: bad cadence, half-filled quiet hours and an unknown time zone are refused; good values are saved', async () => {
    await open();
    const fill = async (v: { every?: string; start?: string; end?: string; tz?: string }) => {
      await page.locator('#everyHours').fill(v.every ?? '');
      await page.locator('#quietStart').fill(v.start ?? '');
      await page.locator('#quietEnd').fill(v.end ?? '');
      await page.locator('#timezone').fill(v.tz ?? '');
      await page.getByRole('button', { name: 'Save triage settings' }).click();
    };
    await refused(() => fill({ every: 'often' }), 'everyHours', /Enter a number of hours/);
    await refused(() => fill({ every: '0.1' }), 'everyHours', />=0\.25/);
    await refused(() => fill({ every: '4', start: '22:00' }), 'quietEnd', /Fill in all three/);
    await refused(
      () => fill({ every: '4', start: '25:00', end: '07:00', tz: 'Europe/Berlin' }),
      'quietStart',
      /HH:MM/,
    );
    await refused(
      () => fill({ every: '4', start: '22:00', end: '07:00', tz: 'Mars/Base' }),
      'timezone',
      /time zone/,
    );
    await page.screenshot({ path: artifactPath('console-settings-refused.png'), fullPage: true });

    await page.getByLabel(/Screen junk/).uncheck();
    await fill({ every: '6', start: '22:00', end: '07:00', tz: 'Europe/Berlin' });
    await page.waitForURL(/saved=triage/);
    const { profile } = await state();
    expect(profile.defaults.cadence.everyHours).toBe(6);
    expect(profile.defaults.quietHours).toEqual({ start: '22:00', end: '07:00', timezone: 'Europe/Berlin' });
    expect(profile.defaults.junk.screenUnknownSenders).toBe(false);
    // Emptied, the limit and the quiet hours go away.
    await page.getByLabel(/Screen junk/).check();
    await fill({});
    await page.waitForURL(/saved=triage/);
    expect((await state()).profile.defaults).toMatchObject({
      cadence: { everyHours: null },
      quietHours: null,
      junk: { screenUnknownSenders: true },
    });
  });

  it('the send switch turns sending on and off', async () => {
    await open();
    await page.getByRole('button', { name: 'Turn sending on' }).click();
    await page.waitForURL(/saved=sending/);
    expect((await state()).sending).toBe(true);
    await page.getByRole('button', { name: 'Turn sending off' }).click();
    await page.waitForURL(/saved=sending/);
    expect((await state()).sending).toBe(false);
  });

  /** A profile change as an agent's tool makes it (the inbox needs to be no real one here). */
  const INBOX = 'inbox_aaaaaaaaaaaaaaaaaaaa';
  const byAgent = async (patch: unknown) =>
    expect((await app.services.tools.profiles.update(wholeAccount(accountId), patch, 'agent')).ok).toBe(true);

  it('confirming in the app: an agent may turn it on for one inbox; the person turns it on and off for all, here', async () => {
    const inbox = INBOX;
    await byAgent({ inboxes: { [inbox]: { sending: { requireInAppConfirmation: true } } } });
    await open();
    expect(await page.locator('main').textContent()).toMatch(
      /Confirming in the app is on for some of your inboxes/,
    );
    await page.getByRole('button', { name: 'Require confirming in the app' }).click();
    await page.waitForURL(/saved=confirm/);
    expect(await page.getByRole('status').textContent()).toContain('how you approve sends and unsubscribes');
    let { profile } = await state();
    expect(profile.defaults.sending.requireInAppConfirmation).toBe(true);
    expect(profile.inboxes[inbox]?.sending).toBeUndefined();
    expect(await page.locator('main').textContent()).toMatch(/an agent cannot turn this off/);
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    await page.getByRole('button', { name: 'Allow approval in chat' }).click();
    await page.waitForURL(/saved=confirm/);
    ({ profile } = await state());
    expect(profile.defaults.sending.requireInAppConfirmation).toBe(false);
    expect(await page.locator('main').textContent()).toMatch(/Confirming in the app is off/);
  });

  it('the VIP list shows the triage profile’s VIPs too, and removes them from every inbox’s list', async () => {
    const inbox = INBOX;
    await byAgent({
      defaults: { vip: { people: ['cfo@corp.test'] } },
      inboxes: { [inbox]: { vip: { people: ['cfo@corp.test'] } } },
    });
    await open();
    await page.getByRole('button', { name: 'Remove cfo@corp.test' }).click();
    await page.waitForURL(/saved=vip/);
    const { profile } = await state();
    expect(profile.defaults.vip.people).toEqual([]);
    expect(profile.inboxes[inbox]?.vip?.people).toEqual([]);
    expect(await page.getByRole('button', { name: 'Remove cfo@corp.test' }).count()).toBe(0);
  });

  it('the screening lists: an inbox’s own shown apart, an entry removed from every copy, one past the first 50 by name', async () => {
    const known = Array.from({ length: 51 }, (_, i) => `friend${String(i).padStart(2, '0')}@example.org`);
    await byAgent({
      defaults: {
        junk: { knownGoodSenders: [...known, 'payroll@evil.example'], blockedDomains: ['spam.example'] },
      },
      inboxes: { [INBOX]: { junk: { knownGoodSenders: ['payroll@evil.example'] } } },
    });
    await open();
    expect(await page.getByRole('heading', { name: 'An inbox you removed keeps its own' }).count()).toBe(1);
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    await page
      .getByRole('button', { name: 'Remove payroll@evil.example from known-good senders' })
      .first()
      .click();
    await page.waitForURL(/saved=screening/);
    expect(await page.getByRole('status').textContent()).toContain('your screening lists');
    let { profile } = await state();
    expect(profile.defaults.junk.knownGoodSenders).toEqual(known);
    expect(profile.inboxes[INBOX]?.junk?.knownGoodSenders).toEqual([]);

    await page.getByLabel('And 1 more: remove one by name').fill('Friend50@Example.org');
    await page.getByRole('button', { name: 'Remove', exact: true }).last().click();
    await page.waitForURL(/saved=screening/);
    ({ profile } = await state());
    expect(profile.defaults.junk.knownGoodSenders).toEqual(known.slice(0, 50));
    expect(await page.getByLabel(/remove one by name/).count()).toBe(0);
    await page.getByRole('button', { name: 'Remove spam.example from blocked domains' }).click();
    await page.waitForURL(/saved=screening/);
    expect((await state()).profile.defaults.junk.blockedDomains).toEqual([]);
  });

  it('an inbox’s own triage settings are shown in words; the person lets it follow the settings, then the lists, above again', async () => {
    const [inbox] = await app.services.tools.inboxes.all(wholeAccount(accountId));
    if (inbox === undefined) throw new Error('no demo inbox');
    // As an agent that reaches only that inbox sets them (decision 0143), beside a screening list of its own.
    const set = await app.services.tools.profiles.update(
      { accountId, inboxes: new Set([inbox.id]) },
      {
        inboxes: {
          [inbox.id]: {
            cadence: { everyHours: 2 },
            quietHours: null,
            junk: {
              screenUnknownSenders: false,
              notes: '<b>Invoices</b> are never junk',
              blockedDomains: ['x.example'],
            },
          },
        },
      },
      'agent',
    );
    expect(set.ok).toBe(true);
    await open();
    const heading = `${inbox.label} keeps its own triage settings`;
    expect(await page.getByRole('heading', { name: heading }).count()).toBe(1);
    expect(await page.locator('ul.own-triage li').allTextContents()).toEqual([
      'Hours between triage passes: 2',
      'Quiet hours: none',
      'Screen junk from senders who are neither VIPs nor known good: off',
      'Guidance for screening junk: <b>Invoices</b> are never junk',
    ]);
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
    await page.getByRole('button', { name: `Use the settings above for ${inbox.label}` }).click();
    await page.waitForURL(/saved=inbox-triage/);
    expect(await page.getByRole('status').textContent()).toContain('follows your triage settings again');
    // Its own screening list stays: it has its own control, below.
    expect((await state()).profile.inboxes[inbox.id]).toEqual({ junk: { blockedDomains: ['x.example'] } });
    expect(await page.getByRole('heading', { name: heading }).count()).toBe(0);
    await page.getByRole('button', { name: `Use the lists above for ${inbox.label}` }).click();
    await page.waitForURL(/saved=inbox-lists/);
    expect((await state()).profile.inboxes[inbox.id]).toBeUndefined();
    expect(await page.getByRole('heading', { name: `${inbox.label} keeps its own` }).count()).toBe(0);
  });

  // Last: it ends every other session of the account (this page's own goes on with the new one).
  it('the password is changed with the current one; a reset link opens its own form', async () => {
    await page.goto(`${app.config.baseUrl}/settings`);
    await page.getByRole('link', { name: 'Change your password' }).click();
    await page.getByLabel('Current password').fill('not the password');
    await page.getByLabel('New password').fill('a new passphrase, long');
    await page.getByRole('button', { name: 'Change password' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('That is not your current password.');
    await page.getByLabel('Current password').fill('correct horse battery');
    await page.getByLabel('New password').fill('a new passphrase, long');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForURL(/done=1/);
    expect(await page.getByRole('status').textContent()).toContain('Your password is changed.');
    expect(await seriousAccessibilityProblems(page)).toEqual([]);

    const issued = await app.services.sessions.issuePasswordReset('owner@example.test');
    await page.goto(`${app.config.baseUrl}/reset?token=${issued.ok ? issued.value : ''}`);
    await page.getByLabel('New password').waitFor();
    expect(await seriousAccessibilityProblems(page)).toEqual([]);
  });
});
