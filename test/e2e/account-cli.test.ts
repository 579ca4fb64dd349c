import { describe, expect, it } from 'vitest';
import { runCommand } from '../support/spawn-service.ts';
import { ownedDataDir } from '../support/owned-data-dir.ts';
import { WebClient } from '../support/web-client.ts';
import { readConfiguration } from '../../src/config/index.ts';
import { createApp } from '../../src/app.ts';
import { silentLogger } from '../../src/lib/logger.ts';
import { totpCode, totpStep } from '../../src/lib/totp.ts';
import type { App } from '../../src/app.ts';
import type { AccountId } from '../../src/core/accounts/account.ts';

const cli = (dataDir: string, ...args: string[]) => runCommand({ DATA_DIR: dataDir }, ...args);

/** The browser the person turned two-step sign-in on from. */
const BROWSER = { ip: '198.51.100.7', userAgent: 'Mozilla/5.0 (X11; Linux x86_64)' };

describe('inbox-triage account', () => {
  it('invites, sets plans and lists accounts against the configured database', async () => {
    // The owner, created through the same database the CLI uses.
    const dataDir = await ownedDataDir('cli-');
    const { config, secrets } = readConfiguration({ DATA_DIR: dataDir }, '/');

    const invite = await cli(dataDir, 'account', 'invite', '--email', 'friend@example.test');
    expect(invite.code).toBe(0);
    expect(invite.out).toMatch(/^http:\/\/127\.0\.0\.1:8787\/invite\?token=[a-z0-9]{32}\n$/);

    const pro = await cli(dataDir, 'account', 'set-plan', 'owner@example.test', 'pro');
    expect(pro).toMatchObject({ code: 0, out: 'owner@example.test: pro, payment ok\n' });
    const failed = await cli(
      dataDir,
      'account',
      'set-plan',
      'OWNER@example.test',
      'trial',
      '--trial-days',
      '0',
      '--payment',
      'failed',
    );
    expect(failed.code).toBe(0);
    expect(failed.out).toMatch(/^owner@example\.test: trial until .*, payment failed\n$/);

    const list = await cli(dataDir, 'account', 'list');
    expect(list.out).toMatch(/^owner@example\.test\ttrial\t.+\tfailed\n$/);

    expect((await cli(dataDir, 'account', 'set-plan', 'nobody@example.test', 'pro')).code).toBe(1);
    expect((await cli(dataDir, 'account', 'set-plan', 'owner@example.test', 'gold')).code).toBe(2);
    expect((await cli(dataDir, 'account', 'frob')).code).toBe(2);

    // The invitation link works once, in the same database.
    const app2 = await createApp(config, secrets, { log: silentLogger });
    const token = /token=([a-z0-9]+)/.exec(invite.out)![1]!;
    const web = new WebClient(app2);
    expect((await web.get(`/invite?token=${token}`)).status).toBe(200);
    expect(web.lastHtml).toContain('friend@example.test');
    await app2.close();
  });

  it('reset-password prints a one-time link that sets a new password in the service on the same database', async () => {
    const dataDir = await ownedDataDir('cli-');
    const { config, secrets } = readConfiguration({ DATA_DIR: dataDir }, '/');
    expect((await cli(dataDir, 'account', 'reset-password')).code).toBe(2);
    const nobody = await cli(dataDir, 'account', 'reset-password', 'nobody@example.test');
    expect(nobody.code).toBe(1);
    expect(nobody.err).toContain('no account with email nobody@example.test');
    const issued = await cli(dataDir, 'account', 'reset-password', 'Owner@Example.test');
    expect(issued.code).toBe(0);
    expect(issued.out).toMatch(/^http:\/\/127\.0\.0\.1:8787\/reset\?token=[a-z0-9]{32}\n$/);

    const app = await createApp(config, secrets, { log: silentLogger });
    try {
      const token = /token=([a-z0-9]+)/.exec(issued.out)![1]!;
      const web = new WebClient(app);
      expect((await web.get(`/reset?token=${token}`)).status).toBe(200);
      expect(web.lastHtml).toContain('owner@example.test');
      expect((await web.post('/reset', { token, password: 'a new passphrase, long' })).status).toBe(303);
      expect((await web.get('/settings')).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('two-step-off turns off the second factor of a person who lost it, in the same database', async () => {
    const dataDir = await ownedDataDir('cli-');
    const { config, secrets } = readConfiguration({ DATA_DIR: dataDir }, '/');
    const onOwner = async <T>(f: (app: App, id: AccountId) => Promise<T>): Promise<T> => {
      const app = await createApp(config, secrets, { log: silentLogger });
      try {
        const account = await app.stores.accounts.findByEmail('owner@example.test');
        return await f(app, account!.id);
      } finally {
        await app.close();
      }
    };
    await onOwner(async (app, id) => {
      const secret = app.services.secondFactor.newSecret();
      const code = totpCode(secret, totpStep(new Date()));
      expect(await app.services.secondFactor.enable(id, secret, code, BROWSER)).toMatchObject({ ok: true });
    });
    expect((await cli(dataDir, 'account', 'two-step-off')).code).toBe(2);
    expect((await cli(dataDir, 'account', 'two-step-off', 'nobody@example.test')).code).toBe(1);
    expect(await cli(dataDir, 'account', 'two-step-off', 'Owner@Example.test')).toMatchObject({
      code: 0,
      out: 'two-step sign-in is off for owner@example.test\n',
    });
    expect(await onOwner((app, id) => app.services.secondFactor.status(id))).toEqual({ on: false });
    expect((await cli(dataDir, 'account', 'two-step-off', 'owner@example.test')).out).toBe(
      'owner@example.test had no two-step sign-in\n',
    );
    // The person's sign-in history says who turned it off, once.
    expect(
      (await onOwner((app, id) => app.stores.signInHistory.recent(id, 10))).map(({ kind, ip }) => ({
        kind,
        ip,
      })),
    ).toEqual([
      { kind: 'two_step_off_by_operator', ip: null },
      { kind: 'two_step_on', ip: BROWSER.ip },
    ]);
  });
});
