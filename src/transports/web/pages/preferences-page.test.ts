import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../app.ts';
import { createTestApp } from '../../../../test/support/test-app.ts';
import { agentOn, expectToolOk, type toolCaller } from '../../../../test/support/tool-caller.ts';
import { OWNER, type WebClient } from '../../../../test/support/web-client.ts';

// The console's VIP list holds the triage profile's VIPs too (decision 0102), and those can count for some inboxes
// only — an inbox's own list replaces the defaults'. It said nothing of that: a VIP the person saw counted nowhere
// for their other inboxes, and removing it (which takes it off everywhere) gave no hint of where it had counted.
describe('the VIP list on Sending, VIPs and triage', () => {
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let web: WebClient;
  beforeAll(async () => {
    app = await createTestApp();
    ({ call, web } = await agentOn(app));
  });
  afterAll(async () => {
    await app.close();
  });

  it('names the inboxes a VIP counts for when it is not every one', async () => {
    const added = expectToolOk(
      await call('add_inbox', {
        label: 'Work',
        provider: 'imap',
        email: 'me@work.test',
        imapHost: 'imap.work.test',
      }),
    );
    const work = (added['inbox'] as { id: string }).id;
    expectToolOk(await call('add_vip', { emails: ['boss@corp.test'] }));
    const owner = await app.stores.accounts.findByEmail(OWNER.email);
    if (owner === undefined) throw new Error('no owner');
    const saved = await app.services.tools.profiles.update(
      owner.id,
      {
        defaults: { vip: { people: ['all@corp.test', 'demo-only@corp.test'] } },
        inboxes: { [work]: { vip: { people: ['all@corp.test', 'work-only@corp.test'] } } },
      },
      'person',
    );
    expect(saved.ok).toBe(true);
    await web.get('/settings/preferences');
    const items = [...web.lastHtml.matchAll(/<li>\s*([^<]+)<span class="muted">([^<]*)<\/span>/g)].map(
      ([, value, reach]) => `${(value ?? '').trim()}${reach ?? ''}`,
    );
    expect(items).toEqual([
      'boss@corp.test',
      'all@corp.test',
      'demo-only@corp.test (only for Demo inbox)',
      'work-only@corp.test (only for Work)',
    ]);
  });
});
