import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../lib/logger.ts';
import { listen } from './serve.ts';

describe('listen / graceful close', () => {
  it('finishes an in-flight request, refuses new connections, and resolves promptly after', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let arrived: () => void = () => undefined;
    const reached = new Promise<void>((r) => (arrived = r));
    const server = await listen(
      async () => {
        arrived();
        await gate;
        return new Response('done');
      },
      { host: '127.0.0.1', port: 0, log: silentLogger },
    );
    const url = `http://127.0.0.1:${server.port}/`;
    const inFlight = fetch(url);
    await reached;

    const t = performance.now();
    const closed = server.close(5000);
    await expect(fetch(url)).rejects.toThrow(); // no new connections once closing
    release();
    const res = await inFlight;
    expect(await res.text()).toBe('done');
    await closed;
    // The keep-alive socket of the finished request must not hold shutdown for its 5 s timeout.
    expect(performance.now() - t).toBeLessThan(2000);
  });

  it('force-closes a request that outlives the timeout', async () => {
    const server = await listen(() => new Promise<Response>(() => undefined), {
      host: '127.0.0.1',
      port: 0,
      log: silentLogger,
    });
    const hung = fetch(`http://127.0.0.1:${server.port}/`).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    await server.close(200);
    expect(await hung).toBeInstanceOf(Error);
  });
});
