import { connect, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from './fault-proxy.ts';

/** Everything the socket receives until it closes, and when it closed. */
function collect(port: number, send: string[]): Promise<{ text: string; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const s = connect(port, '127.0.0.1');
    let text = '';
    s.on('data', (d: Buffer) => (text += d.toString()));
    s.on('error', () => undefined);
    s.on('close', () => resolve({ text, closedAfterMs: Date.now() - started }));
    s.on('connect', () => {
      for (const line of send) s.write(line);
      setTimeout(() => s.end(), 400);
    });
  });
}

describe('the fault proxy', () => {
  let echo: Server;
  let proxy: FaultProxy;
  beforeAll(async () => {
    // Echoes what it gets, then answers "BYE" when the client ends.
    echo = createServer((s) => {
      s.on('data', (d) => s.write(d));
      s.on('end', () => s.end('BYE'));
      s.on('error', () => undefined);
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
    const address = echo.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    proxy = await startFaultProxy({ host: '127.0.0.1', port: address.port });
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise((r) => echo.close(r));
  });

  it('passes bytes through untouched, and counts the connections', async () => {
    const before = proxy.attempts;
    expect((await collect(proxy.port, ['hello ', 'world'])).text).toBe('hello worldBYE');
    expect(proxy.attempts).toBe(before + 1);
  });

  it('holds back the answer a tap waits for, and everything after it, until cleared', async () => {
    const s = connect(proxy.port, '127.0.0.1');
    let text = '';
    s.on('data', (d: Buffer) => (text += d.toString()));
    await new Promise((r) => s.once('connect', r));
    const seen = proxy.holdWhen('down', /OK \[DONE\]/);
    s.write('first ');
    await new Promise((r) => setTimeout(r, 100));
    expect(text).toBe('first '); // not matching: passed through
    s.write('A1 OK [DONE] ');
    await seen;
    s.write('later');
    await new Promise((r) => setTimeout(r, 150));
    expect(text).toBe('first '); // the matching answer and what follows wait
    proxy.clear();
    await new Promise((r) => setTimeout(r, 100));
    expect(text).toBe('first A1 OK [DONE] later');
    s.destroy();
  });

  it('cuts a connection after exactly the bytes it names, mid-stream', async () => {
    proxy.inject({ kind: 'drop-after', direction: 'down', bytes: 7 }, { future: true });
    const r = await collect(proxy.port, ['0123456789']);
    proxy.clear();
    expect(r.text).toBe('0123456');
  });

  it('stalls and then delivers; refuses new connections while down', async () => {
    proxy.inject({ kind: 'stall', ms: 250 }, { future: true });
    const stalled = collect(proxy.port, ['late']);
    const r = await stalled;
    proxy.clear();
    expect(r.text).toContain('late');
    expect(r.closedAfterMs).toBeGreaterThanOrEqual(250);
    proxy.refuse(true);
    const before = proxy.attempts;
    expect((await collect(proxy.port, ['x'])).text).toBe('');
    expect(proxy.attempts).toBe(before + 1);
    proxy.refuse(false);
    expect((await collect(proxy.port, ['back'])).text).toBe('backBYE');
  });

  it('slows a connection to chunks with pauses between them', async () => {
    proxy.inject({ kind: 'slow', chunk: 2, delayMs: 30 }, { future: true });
    const r = await collect(proxy.port, ['abcdefgh']);
    proxy.clear();
    expect(r.text.startsWith('abcdefgh')).toBe(true);
    expect(r.closedAfterMs).toBeGreaterThanOrEqual(400);
  });
});
