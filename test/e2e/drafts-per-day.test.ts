import { afterEach, describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { twoAgentsOnAnInbox } from '../support/inbox-day-budget.ts';
import { bearer, call, createTestApp, expectError } from '../support/test-app.ts';
import { agentOn, expectToolError, expectToolOk } from '../support/tool-caller.ts';
import { createKeyViaPage } from '../support/web-client.ts';

const DAY = 86_400_000;
/** RATE_LIMIT_DRAFTS_PER_INBOX_PER_DAY here (200 unless set). */
const PER_DAY = 6;

// Decision 0126: create_draft wrote a message into the person's mailbox as often as an agent's request budget allowed
// (600 a minute by default), up to 200,000 characters each — a loop, or an agent obeying a sender's words, could fill the
// Drafts folder and the mailbox's quota, past which the person's incoming mail is refused.
describe.each(['sqlite', 'postgres'] as const)('new drafts on %s', (engine) => {
  const apps: App[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const a of apps.splice(0)) await a.close();
  });

  it(`are ${String(PER_DAY)} an inbox a day, whoever writes them and on whichever node`, async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { app, web, first, other, inboxId, removeInboxAndItsCount } = await twoAgentsOnAnInbox(
      engine,
      { draftsPerInboxPerDay: PER_DAY },
      apps,
    );
    const draft = (n: number) => ({
      inboxId,
      to: 'friend@example.org',
      subject: `Draft ${String(n)}`,
      text: 'x',
    });
    const drafts = () =>
      app.db.kysely
        .selectFrom('demo_messages')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('inbox_id', '=', inboxId)
        .where('folder_path', '=', 'Drafts')
        .executeTakeFirstOrThrow()
        .then((r) => Number(r.n));
    const before = await drafts();

    for (let n = 0; n < PER_DAY; n++)
      expectToolOk(await (n % 2 === 0 ? first : other)('create_draft', draft(n)));
    const refused = expectToolError(await other('create_draft', draft(-1)), 'rate_limited');
    expect(refused['retryAfterSeconds']).toBeGreaterThan(DAY / 1000 - 600);
    expect(refused['sayToHuman']).toMatch(/drafts/);
    expectToolError(await first('create_draft', draft(-2)), 'rate_limited');
    // The person sees it in Activity, in words that say what it may mean.
    expect(await (await web.get('/settings/activity')).text()).toContain('may be stuck repeating itself');
    // The REST API's drafts are the same drafts.
    const key = await createKeyViaPage(web, 'rest agent');
    const rest = await call(app, `/api/inboxes/${inboxId}/draft`, {
      method: 'POST',
      headers: { ...bearer(key).headers, 'content-type': 'application/json' },
      body: JSON.stringify({ to: 'friend@example.org', subject: 'Over', text: 'x' }),
    });
    expect(rest.headers.get('retry-after')).not.toBeNull();
    await expectError(rest, 429, 'rate_limited');
    expect(await drafts()).toBe(before + PER_DAY);

    // A day on, the inbox takes drafts again.
    vi.setSystemTime(Date.now() + DAY);
    expectToolOk(await other('create_draft', draft(-3)));
    expect(await drafts()).toBe(before + PER_DAY + 1);

    // Removing the inbox takes its count with it.
    await removeInboxAndItsCount();
  });

  // Decision 0147: on SQLite the count was kept in memory, and every start of the service began the day again.
  it("are counted on after the service restarts: the day's budget is the day's", async () => {
    const { first, inboxId, restart } = await twoAgentsOnAnInbox(engine, { draftsPerInboxPerDay: 2 }, apps);
    const draft = { inboxId, to: 'friend@example.org', subject: 'Hello', text: 'x' };
    expectToolOk(await first('create_draft', draft));
    const again = await restart();
    expectToolOk(await again('create_draft', draft));
    const refused = expectToolError(await again('create_draft', draft), 'rate_limited');
    expect(refused['retryAfterSeconds']).toBeGreaterThan(DAY / 1000 - 600);
  });

  it('waiting for the person past the 50 the page shows are said to be there', async () => {
    const app = await createTestApp({ ...(engine === 'postgres' && { pgUrl: await freshPgDatabase() }) });
    apps.push(app);
    const { web, call } = await agentOn(app);
    const inboxId = (expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
    expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
    const shown = async () => {
      const page = await (await web.get('/waiting')).text();
      return { sends: page.split('data-pending-send=').length - 1, more: page.includes('data-more-waiting') };
    };
    for (let n = 0; n < 50; n++)
      expectToolOk(
        await call('create_draft', { inboxId, to: 'a@example.org', subject: `S${String(n)}`, text: 'x' }),
      );
    expect(await shown()).toEqual({ sends: 50, more: false });
    expectToolOk(await call('create_draft', { inboxId, to: 'a@example.org', subject: 'S50', text: 'x' }));
    expect(await shown()).toEqual({ sends: 50, more: true });
  });
});
