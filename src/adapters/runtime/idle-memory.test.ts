import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

/**
 * Each case runs in a process of its own: the release is a whole-process collection, and the young generation it
 * shrinks is the process's. After an allocation burst the event loop works for `busyMs`, then waits `quietMs`.
 */
async function trial(
  busyMs: number,
  quietMs: number,
): Promise<{ releases: number; youngBefore: number; youngAfter: number }> {
  const script = `
    import v8 from 'node:v8';
    import { startIdleMemoryRelease } from ${JSON.stringify(new URL('./idle-memory.ts', import.meta.url).href)};
    const young = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    const keep = [];
    for (let i = 0; i < 3e6; i++) { const o = { i, s: 'x' + i }; if (i % 1000 === 0) keep.push(o); }
    const youngBefore = young();
    const release = startIdleMemoryRelease({ intervalMs: 100, idleMs: 300, minSlackBytes: 4 * 2 ** 20 });
    const end = Date.now() + ${String(busyMs)};
    await new Promise((done) => {
      const spin = () => { const t = Date.now() + 20; while (Date.now() < t) keep.length; Date.now() < end ? setImmediate(spin) : done(); };
      spin();
    });
    await new Promise((r) => setTimeout(r, ${String(quietMs)}));
    release.stop();
    console.log(JSON.stringify({ releases: release.releases(), youngBefore, youngAfter: young(), kept: keep.length }));
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
  return JSON.parse(stdout) as { releases: number; youngBefore: number; youngAfter: number };
}

describe('startIdleMemoryRelease', () => {
  it('gives the young generation back once the event loop has been quiet, once', async () => {
    const r = await trial(0, 1200);
    expect(r.youngBefore).toBeGreaterThan(8 * 2 ** 20); // the burst grew it
    expect(r.releases).toBe(1); // quiet for 1.2 s: one release, not one per sample
    expect(r.youngAfter).toBeLessThan(r.youngBefore / 4);
  });

  it('leaves a busy process alone', async () => {
    const r = await trial(1500, 0);
    expect(r.releases).toBe(0);
    expect(r.youngAfter).toBeGreaterThan(8 * 2 ** 20);
  });
});
