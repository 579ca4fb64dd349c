import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../app.ts';
import { approvedCode, codeGrant } from '../../../../test/support/oauth-code.ts';
import { createTestApp } from '../../../../test/support/test-app.ts';
import {
  agentOn,
  expectToolOk,
  firstAttachmentLink,
  toolCaller,
} from '../../../../test/support/tool-caller.ts';
import { OWNER, type WebClient } from '../../../../test/support/web-client.ts';

// Decision 0120: a download link is a capability minted for one credential. It outlived that credential — a link an
// agent got a minute before its key was revoked, its sign-in disconnected or the trial ended still opened the
// person's attachment for the rest of its ten minutes.
describe('a download link, once the credential it was issued to stops working', () => {
  let app: App;
  let web: WebClient;
  let key: string;
  let inboxId: string;

  beforeAll(async () => {
    app = await createTestApp();
    ({ web, key } = await agentOn(app));
    const call = toolCaller(app, key);
    inboxId = (expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
    expectToolOk(await call('sync_inbox', { inboxId }));
  });
  afterAll(async () => {
    await app.close();
  });

  const linkFor = (bearer: string) => firstAttachmentLink(toolCaller(app, bearer), inboxId);
  const status = async (url: string) => (await app.fetch(new Request(url))).status;

  it('stops with a revoked key', async () => {
    const url = await linkFor(key);
    expect(await status(url)).toBe(200);
    await web.get('/settings/advanced');
    const id = /\/settings\/advanced\/keys\/(key_[a-z0-9]+)\/revoke/.exec(web.lastHtml)![1]!;
    expect((await web.post(`/settings/advanced/keys/${id}/revoke`, {})).status).toBe(303);
    expect(await status(url)).toBe(410);
  });

  it('stops with a disconnected agent, and goes on for another', async () => {
    const resource = new URL('/mcp', app.config.baseUrl).href;
    const tokens = async () => {
      const { clientId, code } = await approvedCode(web, resource);
      const res = await app.fetch(
        new Request(new URL('/oauth/token', app.config.baseUrl), {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ ...codeGrant(code, resource), client_id: clientId }),
        }),
      );
      return { clientId, access: ((await res.json()) as { access_token: string }).access_token };
    };
    const [first, second] = [await tokens(), await tokens()];
    const [mine, theirs] = [await linkFor(first.access), await linkFor(second.access)];
    await web.get('/settings/agents');
    expect((await web.post('/settings/agents/disconnect', { client_id: first.clientId })).status).toBe(303);
    expect(await status(mine)).toBe(410);
    expect(await status(theirs)).toBe(200);

    // A trial that ended takes every link of the account, as it refuses every route.
    await app.services.accounts.setPlan(OWNER.email, 'trial', { trialDays: 0 });
    expect(await status(theirs)).toBe(410);
    await app.services.accounts.setPlan(OWNER.email, 'pro');
    expect(await status(theirs)).toBe(200);
  });
});
