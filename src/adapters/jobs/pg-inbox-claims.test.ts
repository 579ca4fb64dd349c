import { afterEach, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../../../test/rig/fault-proxy.ts';
import { freshPgDatabase } from '../../../test/rig/pg.ts';
import { startPgBouncer, type PgBouncer } from '../../../test/rig/pgbouncer.ts';
import { PgInboxClaims } from './pg-inbox-claims.ts';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function eventually(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await pause(50);
}

// Decision 0058: the claims session going quiet (the network to the database broken, the connection not closed).
describe('PgInboxClaims over a connection that goes quiet', () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
  });

  /** A fresh database, and the same reached through a fault proxy (`via`). */
  async function proxied(): Promise<{ url: string; via: string; proxy: FaultProxy }> {
    const url = await freshPgDatabase();
    const u = new URL(url);
    const proxy = await startFaultProxy({ host: u.hostname, port: Number(u.port) });
    open.push(proxy);
    u.port = String(proxy.port);
    return { url, via: u.toString(), proxy };
  }

  it('counts a question left unanswered as the session lost, tells its listeners once, and claims again anew', async () => {
    const { url, via, proxy } = await proxied();
    const node = new PgInboxClaims(via, { answerWithinMs: 500 });
    const other = new PgInboxClaims(url);
    open.push(node, other);
    let lost = 0;
    node.onLost(() => lost++);

    expect(await node.claim('a')).toBe(true);
    expect(await other.claim('a')).toBe(false);
    expect(await node.nodes()).toBe(2);

    proxy.inject({ kind: 'stall', ms: 600_000 });
    await expect(node.nodes()).rejects.toThrow('the watch session gave no answer within 500 ms');
    expect(lost).toBe(1);

    // The server has not heard of it (the proxy holds the bytes); once it does, the claim is free for the others.
    proxy.clear();
    await eventually(() => other.claim('a'));
    // This node goes on through a new session, and nobody is told of a loss again.
    expect(await node.claim('b')).toBe(true);
    expect(proxy.attempts).toBe(2);
    expect(lost).toBe(1);
  });

  it('gives up a new session that connects but does not answer, and tries again next time', async () => {
    const { via, proxy } = await proxied();
    const node = new PgInboxClaims(via, { answerWithinMs: 500 });
    open.push(node);
    proxy.inject({ kind: 'stall', ms: 600_000 }, { future: true });
    await expect(node.claim('a')).rejects.toThrow(/no answer within 500 ms|timeout/i);
    proxy.clear();
    expect(await node.claim('a')).toBe(true);
  });
});

// Decision 0131: behind a pooler in session mode, the server session is the pooler's; it must end a node's claims
// when the node's connection to it ends, and count only the nodes connected.
describe('PgInboxClaims behind PgBouncer in session mode', () => {
  const open: { close(): Promise<void> }[] = [];
  const bouncers: PgBouncer[] = [];
  afterEach(async () => {
    for (const o of open.splice(0)) await o.close();
    for (const b of bouncers.splice(0)) await b.stop();
  });

  it("frees a node's claims when its connection to the pooler ends, and counts the nodes still there", async () => {
    const b = await startPgBouncer(await freshPgDatabase(), 'session');
    bouncers.push(b);
    const u = new URL(b.url);
    const proxy = await startFaultProxy({ host: u.hostname, port: Number(u.port) });
    open.push(proxy);
    u.port = String(proxy.port);
    const node = new PgInboxClaims(u.toString());
    const other = new PgInboxClaims(b.url);
    open.push(node, other);

    expect(await node.claim('a')).toBe(true);
    expect(await other.claim('a')).toBe(false);
    expect(await other.nodes()).toBe(2);

    // The node's process ends: its connection to the pooler closes; the pooler resets the server session it held.
    proxy.inject({ kind: 'drop' });
    await eventually(() => other.claim('a'));
    expect(await other.nodes()).toBe(1);
  });
});
