import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { FAKETIME_LIBRARY } from '../rig/system-deps.ts';
import { startService, type ServiceProcess } from '../support/spawn-service.ts';
import { createTestApp, TEST_KEY, TEST_RATE_LIMITS } from '../support/test-app.ts';
import { tempDir } from '../support/temp-dir.ts';
import {
  agentOn,
  expectToolError,
  expectToolOk,
  firstAttachmentLink,
  httpToolCaller,
  toolCaller,
  toolsListStatus,
} from '../support/tool-caller.ts';
import { createKeyViaPage } from '../support/web-client.ts';

const HOUR = 3_600_000;
const aheadBy = (ms: number): Clock => ({ now: () => new Date(Date.now() + ms) });

// Decision 0129: the nodes of a cluster compare times one of them wrote — a lease's end, a link's expiry, a rate
// window's end. With each machine's own clock, a node whose clock ran an hour ahead gave a second agent the lease
// another held, called a ten-minute download link from another node expired, and reset the shared rate windows it
// counted in (then the window it wrote lasted an hour on the others). Every node now keeps the database server's time.
describe('nodes whose machines disagree about the time keep one time (in-process, one machine clock an hour ahead)', () => {
  const BUDGET = 12;
  let a: App;
  let b: App;
  let keys: string[];
  let inboxId: string;

  beforeAll(async () => {
    const pgUrl = await freshPgDatabase();
    const config = { rateLimits: { ...TEST_RATE_LIMITS, mcpPerMinute: BUDGET } };
    a = await createTestApp({ pgUrl, config });
    const { web, key } = await agentOn(a);
    keys = [key, await createKeyViaPage(web, 'second'), await createKeyViaPage(web, 'third')];
    b = await createTestApp({ pgUrl, config, overrides: { machineClock: aheadBy(HOUR) } });
    inboxId = (expectToolOk(await toolCaller(a, keys[0]!)('list_inboxes'))['inboxes'] as { id: string }[])[0]!
      .id;
    expectToolOk(await toolCaller(a, keys[0]!)('sync_inbox', { inboxId }));
  }, 60_000);
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('keeps both clocks within a second of each other', () => {
    expect(Math.abs(b.clock.now().getTime() - a.clock.now().getTime())).toBeLessThan(1_000);
  });

  it('one agent at a time holds the lease, whichever node it asks', async () => {
    const first = expectToolOk(
      await toolCaller(a, keys[0]!)('begin_triage', { inboxId, agentLabel: 'first', force: true }),
    );
    const refused = expectToolError(
      await toolCaller(b, keys[1]!)('begin_triage', { inboxId, agentLabel: 'second', force: true }),
      'lease_held',
    );
    expect(refused['message']).toContain('first');
    expect(first['lease']).toMatchObject({ agentLabel: 'first' });
  });

  it('a download link made on one node opens on the other', async () => {
    const url = await firstAttachmentLink(toolCaller(a, keys[2]!), inboxId);
    const res = await b.fetch(new Request(url));
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  });

  it('a send in progress on one node is not taken for cut short by the other’s sweep', async () => {
    const call = toolCaller(a, keys[1]!);
    expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
    const offered = expectToolOk(
      await call('create_draft', { inboxId, to: 'sam@example.test', subject: 'In flight', text: 'Hi' }),
    );
    // What send_draft does on node a before it talks to the mail server; then node b's sweep of stranded sends runs
    // (the job queue gives it to any node). Its clock an hour on, the send looked ten minutes stranded.
    expect(await a.stores.pendingSends.claim(String(offered['pendingSendId']), a.clock.now())).toBe(true);
    expect(await b.services.sending.recoverStranded()).toBe(0);
  });

  it('a credential’s request budget is one window on both nodes', async () => {
    const key = keys[2]!;
    const statuses: number[] = [];
    for (let i = 0; i < 2 * BUDGET; i++)
      statuses.push(await toolsListStatus((r) => (i % 2 === 0 ? a : b).fetch(r), a.config.baseUrl, key));
    // The link and the tool calls above spent part of this minute's budget already: at most BUDGET in all.
    const allowed = statuses.filter((s) => s === 200).length;
    expect(allowed).toBeLessThanOrEqual(BUDGET);
    expect(statuses.slice(allowed)).toEqual(Array.from({ length: 2 * BUDGET - allowed }, () => 429));
  });
});

describe('a service process whose machine clock is an hour ahead (libfaketime)', () => {
  const running: ServiceProcess[] = [];
  afterAll(async () => {
    for (const s of running) s.child.kill('SIGTERM');
    await Promise.all(running.map((s) => s.exited));
  });

  it('says so in its log, and keeps one rate window and one lease with a node on time', async () => {
    const pgUrl = await freshPgDatabase();
    const setup = await createTestApp({ pgUrl });
    const { web, key } = await agentOn(setup);
    const other = await createKeyViaPage(web, 'other');
    const inboxId = (
      expectToolOk(await toolCaller(setup, key)('list_inboxes'))['inboxes'] as { id: string }[]
    )[0]!.id;
    await setup.close();
    const env = {
      DATABASE_URL: pgUrl,
      ENCRYPTION_KEY: TEST_KEY.toString('base64'),
      RATE_LIMIT_API_PER_MINUTE: '5',
    };
    const [onTime, ahead] = await Promise.all([
      startService({ ...env, DATA_DIR: tempDir('on-time-') }, 60_000),
      startService(
        {
          ...env,
          DATA_DIR: tempDir('ahead-'),
          METRICS_TOKEN: 'metrics-token-for-the-test',
          LD_PRELOAD: FAKETIME_LIBRARY,
          FAKETIME: '+1h',
          FAKETIME_DONT_FAKE_MONOTONIC: '1',
        },
        60_000,
      ),
    ]);
    running.push(onTime, ahead);
    const warned = ahead
      .stdout()
      .split('\n')
      .filter((l) => l.includes('clockOffsetMs'))
      .map((l) => JSON.parse(l) as { level: string; clockOffsetMs: number; msg: string });
    expect(warned).toHaveLength(1);
    expect(warned[0]!.level).toBe('warn');
    expect(Math.abs(warned[0]!.clockOffsetMs + HOUR)).toBeLessThan(5_000);
    // An hour, to within the measurement's round trip (a busy machine may take a few hundred milliseconds).
    expect(warned[0]!.msg).toMatch(
      /^this machine's clock is 3(59\d|60[0-5])\.\d s ahead of the database server's/,
    );
    expect(onTime.stdout()).not.toContain('clockOffsetMs');
    const metrics = await (
      await fetch(`${ahead.baseUrl}/metrics`, {
        headers: { authorization: 'Bearer metrics-token-for-the-test' },
      })
    ).text();
    const gauge = Number(/^inbox_triage_clock_offset_seconds (\S+)$/m.exec(metrics)?.[1]);
    expect(Math.abs(gauge + 3600)).toBeLessThan(5);

    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const node = i % 2 === 0 ? onTime : ahead;
      const res = await fetch(`${node.baseUrl}/api/inboxes`, { headers: { authorization: `Bearer ${key}` } });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses).toEqual([
      ...Array.from({ length: 5 }, () => 200),
      ...Array.from({ length: 7 }, () => 429),
    ]);

    expectToolOk(
      await httpToolCaller(onTime.baseUrl, other)('begin_triage', {
        inboxId,
        agentLabel: 'on time',
        force: true,
      }),
    );
    expectToolError(
      await httpToolCaller(ahead.baseUrl, other)('begin_triage', {
        inboxId,
        agentLabel: 'ahead',
        force: true,
      }),
      'lease_held',
    );
  }, 120_000);
});
