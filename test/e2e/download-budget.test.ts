import { afterEach, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { createTestApp, TEST_RATE_LIMITS } from '../support/test-app.ts';
import { agentOn, expectToolOk, firstAttachmentLink, toolsListStatus } from '../support/tool-caller.ts';
import { createKeyViaPage } from '../support/web-client.ts';

const BUDGET = 8;
const LIMITS = { ...TEST_RATE_LIMITS, mcpPerMinute: BUDGET };

// Decision 0125: a download link was fetched from the mailbox as often as anyone holding it asked, counted nowhere —
// a link passed on (a log, a chat, a shared screen) could make the service read the attachment from the mailbox
// without end for its ten minutes, and links could be tried from one place without a refusal.
describe.each(['sqlite', 'postgres'] as const)('downloads on %s', (engine) => {
  let app: App | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await app?.close();
    app = undefined;
  });

  it('spend the budget of the credential the link was issued to, and only its', async () => {
    vi.useFakeTimers({ toFake: ['Date'] }); // one rate window throughout
    app = await createTestApp({
      config: { trustProxy: true, rateLimits: LIMITS, syncWindow: 60 },
      ...(engine === 'postgres' && { pgUrl: await freshPgDatabase() }),
    });
    const a = app;
    const { web, key, call } = await agentOn(a);
    const other = await createKeyViaPage(web, 'another agent');
    const inboxId = (expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
    expectToolOk(await call('sync_inbox', { inboxId }));
    // Six requests of the budget spent: the caller's tools/list (it checks results against the schemas) and five calls.
    const url = await firstAttachmentLink(call, inboxId);
    const download = () => a.fetch(new Request(url, { headers: { 'x-forwarded-for': '198.51.100.7' } }));
    const statuses: number[] = [];
    for (let i = 0; i < BUDGET - 6 + 1; i++) {
      const res = await download();
      statuses.push(res.status);
      if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      await res.body?.cancel();
    }
    expect(statuses).toEqual([200, 200, 429]);
    // The same budget as its tool calls: the agent is out of requests too; another key is not.
    expect(await toolsListStatus(a.fetch, a.config.baseUrl, key)).toBe(429);
    expect(await toolsListStatus(a.fetch, a.config.baseUrl, other)).toBe(200);
  });

  it('that open nothing are counted per client network, as wrong keys are', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    app = await createTestApp({
      config: { trustProxy: true, rateLimits: LIMITS },
      ...(engine === 'postgres' && { pgUrl: await freshPgDatabase() }),
    });
    const a = app;
    const tryLink = async (network: string, n: number) =>
      (
        await a.fetch(
          new Request(new URL(`/attachments/att_${String(n).padStart(40, '0')}`, a.config.baseUrl), {
            headers: { 'x-forwarded-for': network },
          }),
        )
      ).status;
    const statuses: number[] = [];
    for (let n = 0; n < 31; n++) statuses.push(await tryLink('203.0.113.5', n));
    expect(statuses.slice(0, 30).every((s) => s === 410)).toBe(true);
    expect(statuses[30]).toBe(429);
    expect(await tryLink('192.0.2.44', 99)).toBe(410);
  });
});
