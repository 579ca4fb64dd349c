import { describe, expect, it } from 'vitest';
import { isOutOfSpace } from './out-of-space.ts';

describe('isOutOfSpace', () => {
  it('knows a full disk by its code, on the error or a cause it wraps', () => {
    const code = (c: string) => Object.assign(new Error('x'), { code: c });
    expect(isOutOfSpace(code('SQLITE_FULL'))).toBe(true);
    expect(isOutOfSpace(code('53100'))).toBe(true);
    expect(isOutOfSpace(code('ENOSPC'))).toBe(true);
    expect(isOutOfSpace(new Error('wrapped', { cause: new Error('twice', { cause: code('ENOSPC') }) }))).toBe(
      true,
    );
  });

  it('takes nothing else for one', () => {
    for (const e of [
      new Error('No space left on device'), // words alone: the code is what the drivers promise
      Object.assign(new Error('x'), { code: 'SQLITE_BUSY' }),
      Object.assign(new Error('x'), { code: '53200' }), // out of memory
      undefined,
      'SQLITE_FULL',
    ])
      expect(isOutOfSpace(e)).toBe(false);
  });
});
