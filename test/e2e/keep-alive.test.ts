import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startService, type ServiceProcess } from '../support/spawn-service.ts';
import { tempDir } from '../support/temp-dir.ts';

/**
 * Decision 0132: an idle connection stays open longer than a proxy in front keeps its own (Node's 5 s would close
 * under a proxy that reuses connections for 60 s, and a request sent at that moment is answered 502 by the proxy).
 */
const running: ServiceProcess[] = [];
afterAll(async () => {
  for (const s of running) s.child.kill('SIGTERM');
  await Promise.all(running.map((s) => s.exited));
});

/** One kept-alive connection, as a proxy holds it: requests one after another, answers read whole. */
async function keptAlive(baseUrl: string) {
  const socket: Socket = connect(Number(new URL(baseUrl).port), '127.0.0.1');
  let text = '';
  let closed = false;
  const ended = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closed = true;
      resolve();
    }),
  );
  socket.on('data', (d: Buffer) => (text += d.toString()));
  await new Promise((resolve) => socket.once('connect', resolve));
  return {
    ended,
    isClosed: () => closed,
    async get(path: string): Promise<string> {
      text = '';
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      while (!/\r\n\r\n[\s\S]*\}$/.test(text)) {
        if (closed) throw new Error('the connection was closed');
        await new Promise((r) => setTimeout(r, 20));
      }
      return text;
    },
    close: () => socket.destroy(),
  };
}

describe('idle connections (HTTP_KEEP_ALIVE_SECONDS)', () => {
  it('are kept 125 s by default: announced, and a request after 7 s idle is answered on the same connection', async () => {
    const svc = await startService({ DATA_DIR: tempDir('keep-alive-') }, 30_000);
    running.push(svc);
    const c = await keptAlive(svc.baseUrl);
    expect(await c.get('/healthz')).toMatch(/^Keep-Alive: timeout=125\r$/m);
    // Node's default would have closed it after 5 s (and 1 s more of grace).
    await new Promise((r) => setTimeout(r, 7000));
    expect(c.isClosed()).toBe(false);
    expect(await c.get('/healthz')).toMatch(/^HTTP\/1\.1 200 OK/);
    c.close();
  }, 30_000);

  it('are closed after the time set', async () => {
    const svc = await startService(
      { DATA_DIR: tempDir('keep-alive-'), HTTP_KEEP_ALIVE_SECONDS: '1' },
      30_000,
    );
    running.push(svc);
    const c = await keptAlive(svc.baseUrl);
    expect(await c.get('/healthz')).toMatch(/^Keep-Alive: timeout=1\r$/m);
    await c.ended;
  }, 30_000);
});
