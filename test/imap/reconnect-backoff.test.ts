import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { startDovecot, type Dovecot } from '../rig/index.ts';
import { startFaultProxy, type FaultProxy } from '../rig/fault-proxy.ts';
import { connectImapInbox } from '../support/imap-inbox.ts';
import { createTestApp, NO_RATE_LIMITS } from '../support/test-app.ts';
import { agentOn } from '../support/tool-caller.ts';

const INBOXES = 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, ok: () => boolean, withinMs: number): Promise<void> {
  const started = Date.now();
  while (!ok()) {
    if (Date.now() - started > withinMs) throw new Error(`not within ${String(withinMs)} ms: ${what}`);
    await sleep(50);
  }
}

// Ten watched inboxes on one server that goes away (issue 21, R2): the IDLE watchers dial again with growing,
// jittered waits — not a storm, not in lockstep — and come back by themselves when the server does.
describe('IDLE watchers when their server goes down', () => {
  let dovecot: Dovecot;
  let proxy: FaultProxy;
  let app: App;

  beforeAll(async () => {
    const users = Object.fromEntries(
      Array.from({ length: INBOXES }, (_, i) => [`w${String(i)}`, `w${String(i)}-password`]),
    );
    dovecot = await startDovecot({ users });
    proxy = await startFaultProxy({ host: '127.0.0.1', port: dovecot.port });
    // Background syncs far apart: what dials during the outage is the watchers.
    app = await createTestApp({
      config: { syncIntervalSeconds: 3600, imapReuseSeconds: 1, rateLimits: NO_RATE_LIMITS },
    });
    const { call } = await agentOn(app);
    for (const [user, password] of Object.entries(users))
      await connectImapInbox(app, call, {
        dovecot: { ...dovecot, port: proxy.port },
        user,
        password,
        label: user,
      });
    app.startBackground();
  }, 120_000);

  afterAll(async () => {
    await app.close();
    await proxy.close();
    await dovecot.stop();
  });

  it('back off with jitter while it is down, and all watch again once it is up', async () => {
    await until('every inbox watched', () => proxy.open >= INBOXES, 15_000);
    await sleep(1500); // pooled sessions of the first syncs close
    const downAt = Date.now();
    const before = proxy.attemptTimes.length;
    proxy.refuse(true);
    await sleep(6000);
    const during = proxy.attemptTimes.slice(before);
    // Waits of 0.5–1 s, 1–2 s, 2–4 s: at most three attempts per watcher in 6 s (a fixed 100 ms retry: 60).
    expect(during.length).toBeGreaterThanOrEqual(INBOXES);
    expect(during.length).toBeLessThanOrEqual(3 * INBOXES);
    // The first round is spread out, not a burst in one instant.
    const firstRound = during.slice(0, INBOXES).map((t) => t - downAt);
    expect(Math.min(...firstRound)).toBeGreaterThanOrEqual(400);
    expect(Math.max(...firstRound) - Math.min(...firstRound)).toBeGreaterThanOrEqual(100);
    proxy.refuse(false);
    // The next waits are at most 8 s: every watcher is back without anyone asking.
    await until('every inbox watched again', () => proxy.open >= INBOXES, 12_000);
  }, 60_000);
});
