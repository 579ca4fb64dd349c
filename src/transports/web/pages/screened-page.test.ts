import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../../app.ts';
import { wholeAccount } from '../../../core/auth/inbox-reach.ts';
import type { AccountId } from '../../../core/accounts/account.ts';
import { createTestApp } from '../../../../test/support/test-app.ts';
import {
  agentOf,
  agentOn,
  expectToolError,
  expectToolOk,
  type toolCaller,
} from '../../../../test/support/tool-caller.ts';
import { addWorkInbox } from '../../../../test/support/agent-rpc.ts';
import { invitedAccount, type WebClient } from '../../../../test/support/web-client.ts';

type Offered = {
  inboxId: string;
  messageId: string;
  subject: string;
  from: { address: string };
  authentication: { dmarc: string; dkim: string };
};

// Screened in the console: the person reviews what agents (and their blocklist) screened, and rescues or reports it
// themselves — the same rules as the tools, as the person, recorded in Activity with an undo handle.
describe('the person’s Screened page', () => {
  let app: App;
  let web: WebClient;
  let call: ReturnType<typeof toolCaller>;
  let accountId: AccountId;
  let inboxId: string;
  let junk: Offered[];
  const rowId = (m: Offered) => {
    const found = new RegExp(
      `data-screened-id="(scr_[a-z0-9]+)">\\s*<strong>${m.subject.replace(/[^\w ]/g, '.')}`,
    ).exec(web.lastHtml);
    if (found === null) throw new Error(`no row for ${m.subject}`);
    return found[1]!;
  };
  const profile = () => app.services.tools.profiles.get(accountId);

  beforeAll(async () => {
    app = await createTestApp({ config: { syncWindow: 200 } });
    ({ web, call } = await agentOn(app));
    accountId = (await app.stores.accounts.findByEmail('owner@example.test'))!.id;
    inboxId = (await app.services.tools.inboxes.all(wholeAccount(accountId)))[0]!.id;
    expectToolOk(await call('sync_inbox', { inboxId }));
    const offered = expectToolOk(await call('screen_junk', {}))['messages'] as Offered[];
    // Three whose subjects are plain words, to find their rows by.
    junk = offered.filter((m) => /^[\w ,.!-]{4,}$/.test(m.subject)).slice(0, 3);
    expect(junk).toHaveLength(3);
    expectToolOk(
      await call('confirm_screening', {
        verdicts: junk.map((m) => ({
          inboxId: m.inboxId,
          messageId: m.messageId,
          verdict: 'junk',
          reason: 'looks <b>off</b>',
        })),
      }),
    );
  });
  afterAll(async () => {
    await app.close();
  });

  it('lists what waits in Screened, with who sent it, the inbox, and what the agent said', async () => {
    expect((await web.get('/screened')).status).toBe(200);
    expect(web.lastHtml).toContain('3 messages screened in the last 7 days are waiting in Screened.');
    for (const m of junk) expect(web.lastHtml).toContain(m.from.address);
    // The agent's words, as text.
    expect(web.lastHtml).toContain('the agent said: “looks &lt;b&gt;off&lt;/b&gt;”');
    expect(web.lastHtml).toContain('<a href="/screened">Screened</a>');
    expect((await web.get('/screened?days=30&offset=nope')).status).toBe(200);
    expect(web.lastHtml).toMatch(/aria-current="page"[^>]*>\s*Last 30 days\s*</);
  });

  it('Rescue puts it back and marks its sender good everywhere, undoable from Activity', async () => {
    await web.get('/screened');
    const [first] = junk;
    const id = rowId(first!);
    const res = await web.post('/screened/rescue', { inbox: inboxId, id, days: '30' });
    expect(res.headers.get('location')).toBe('/screened?days=30&done=rescued');
    expect((await profile()).defaults.junk.knownGoodSenders).toContain(first!.from.address.toLowerCase());
    await web.get('/screened?days=30&done=rescued');
    expect(web.lastHtml).toContain('Rescued: it is back in your inbox');
    expect(web.lastHtml).not.toContain(`data-screened-id="${id}"`);
    const [entry] = await app.stores.audit.recent(accountId, 1);
    expect(entry).toMatchObject({
      tool: 'rescue_screened',
      credentialKind: 'session',
      outcome: 'ok',
      inboxId,
    });
    expect(entry?.undoId).toMatch(/^undo_/);

    // Again, from a page left open: no longer in Screened, said in words.
    const again = await web.post('/screened/rescue', { inbox: inboxId, id, days: '7' });
    expect(again.headers.get('location')).toBe('/screened?days=7&error=screened_not_found');
    await web.get('/screened?days=7&error=screened_not_found');
    expect(web.lastHtml).toContain('That message is no longer in Screened');
  });

  it('Report moves it to Spam and blocks its sender; an agent’s triage pass on the inbox refuses it meanwhile', async () => {
    await web.get('/screened');
    const second = junk[1]!;
    const id = rowId(second);
    // Another agent's pass: the person's change waits for it, as an agent's would.
    const other = await agentOf(app, web);
    expectToolOk(await other.call('begin_triage', { inboxId, agentLabel: 'Other' }));
    const held = await web.post('/screened/report', { inbox: inboxId, id, days: '7' });
    expect(held.headers.get('location')).toBe('/screened?days=7&error=lease_held');
    expectToolOk(await other.call('end_triage', { inboxId, agentLabel: 'Other' }));

    const res = await web.post('/screened/report', { inbox: inboxId, id, days: '7' });
    expect(res.headers.get('location')).toMatch(
      /^\/screened\?days=7&done=reported_(domain|address|spared|none)$/,
    );
    const junkLists = (await profile()).defaults.junk;
    const address = second.from.address.toLowerCase();
    const blocked = [...junkLists.blockedDomains, ...junkLists.blockedSenders];
    if (res.headers.get('location')!.endsWith('reported_domain'))
      expect(blocked).toContain(address.split('@')[1]);
    if (res.headers.get('location')!.endsWith('reported_address')) expect(blocked).toContain(address);
    await web.get('/screened');
    expect(web.lastHtml).not.toContain(`data-screened-id="${id}"`);
    expectToolError(await call('report_screened', { inboxId, id }), 'screened_not_found');
  });

  it('with several inboxes, one is picked to review; a press comes back to it', async () => {
    const workId = await addWorkInbox(app);
    await web.get('/screened');
    expect(web.lastHtml).toMatch(/aria-current="page"[^>]*>\s*All inboxes\s*</);
    const id = rowId(junk[2]!);
    await web.get(`/screened?inbox=${workId}`);
    expect(web.lastHtml).toMatch(/aria-current="page"[^>]*>\s*Work\s*</);
    expect(web.lastHtml).toContain('Nothing was screened in the last 7 days');
    await web.get(`/screened?inbox=${inboxId}&days=30`);
    expect(web.lastHtml).toContain(`data-screened-id="${id}"`);
    // Another account's inbox id, or none of theirs: every inbox, as if none was picked.
    await web.get('/screened?inbox=inbox_aaaaaaaaaaaaaaaaaaaa');
    expect(web.lastHtml).toContain(`data-screened-id="${id}"`);
    const r = await web.post('/screened/rescue', {
      inbox: inboxId,
      id: 'scr_nope',
      days: '30',
      shown: inboxId,
    });
    expect(r.headers.get('location')).toBe(`/screened?days=30&inbox=${inboxId}&error=screened_not_found`);
    const odd = await web.post('/screened/rescue', {
      inbox: inboxId,
      id: 'scr_nope',
      shown: '&done=rescued',
    });
    expect(odd.headers.get('location')).toBe('/screened?days=7&error=screened_not_found');
  });

  it('nobody else’s rows, and nothing but the forms’ own values: refused in words, never a 500', async () => {
    await web.get('/screened');
    const id = rowId(junk[2]!);
    const stranger = await invitedAccount(app, 'stranger@example.test');
    await stranger.get('/screened');
    expect(stranger.lastHtml).toContain('Nothing was screened in the last 7 days');
    const tried = await stranger.post('/screened/rescue', { inbox: inboxId, id, days: '7' });
    expect(tried.headers.get('location')).toBe('/screened?days=7&error=inbox_not_found');
    for (const fields of [{}, { inbox: 'x', id: 'y' }, { inbox: inboxId, id: 'scr_nope', days: '99999' }]) {
      const r = await web.post('/screened/report', fields);
      expect(r.status).toBe(303);
      expect(r.headers.get('location')).toMatch(/^\/screened\?days=7&error=/);
    }
    // A form posted from elsewhere (no CSRF token): refused before it reaches the page.
    const forged = await app.fetch(
      new Request(`${app.config.baseUrl}/screened/rescue`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
        body: new URLSearchParams({ inbox: inboxId, id }).toString(),
      }),
    );
    expect(forged.status).toBe(403);
    await web.get('/screened?error=%3Cscript%3E');
    expect(web.lastHtml).toContain('That did not work.');
    expect(web.lastHtml).not.toContain('<script>');
    // Still in Screened: nothing above touched it.
    await web.get('/screened');
    expect(web.lastHtml).toContain(`data-screened-id="${id}"`);
  });
});
