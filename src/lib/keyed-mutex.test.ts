import { describe, expect, it } from 'vitest';
import { KeyedMutex } from './keyed-mutex.ts';

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('KeyedMutex', () => {
  it('runs work on one key one at a time, in arrival order', async () => {
    const m = new KeyedMutex();
    const log: string[] = [];
    const job = (name: string) =>
      m.run(['k'], async () => {
        log.push(`${name}+`);
        await tick();
        log.push(`${name}-`);
        return name;
      });
    expect(await Promise.all([job('a'), job('b'), job('c')])).toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['a+', 'a-', 'b+', 'b-', 'c+', 'c-']);
    expect(m.size).toBe(0);
  });

  it('lets different keys run at once, and overlapping key sets in any order without deadlock', async () => {
    const m = new KeyedMutex();
    let inside = 0;
    let most = 0;
    const job = (keys: string[]) =>
      m.run(keys, async () => {
        inside++;
        most = Math.max(most, inside);
        await tick();
        inside--;
      });
    await Promise.all([job(['x']), job(['y'])]);
    expect(most).toBe(2);
    most = 0;
    await Promise.all([job(['x', 'y']), job(['y', 'x']), job(['y']), job(['x', 'x'])]);
    expect(most).toBe(1);
    expect(m.size).toBe(0);
  });

  it('releases the key when the work throws', async () => {
    const m = new KeyedMutex();
    await expect(m.run(['k'], () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await m.run(['k'], () => Promise.resolve(1))).toBe(1);
    expect(m.size).toBe(0);
  });
});
