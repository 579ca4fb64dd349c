import { describe, expect, it } from 'vitest';
import { deleteAgainOnDeadlock, isDeadlock } from './sql-errors.ts';

const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' });

describe('deleteAgainOnDeadlock (decision 0064)', () => {
  it('runs a deletion PostgreSQL aborted as a deadlock again, and gives its answer', async () => {
    let runs = 0;
    const answer = await deleteAgainOnDeadlock(() => {
      runs++;
      return runs < 3 ? Promise.reject(deadlock()) : Promise.resolve('deleted');
    });
    expect(answer).toBe('deleted');
    expect(runs).toBe(3);
  });

  it('passes any other failure on at once, and a deadlock after the last attempt', async () => {
    let runs = 0;
    const other = Object.assign(new Error('permission denied'), { code: '42501' });
    await expect(
      deleteAgainOnDeadlock(() => {
        runs++;
        return Promise.reject(other);
      }),
    ).rejects.toBe(other);
    expect(runs).toBe(1);
    runs = 0;
    await expect(
      deleteAgainOnDeadlock(() => {
        runs++;
        return Promise.reject(deadlock());
      }, 3),
    ).rejects.toThrow('deadlock detected');
    expect(runs).toBe(3);
    expect(isDeadlock(deadlock())).toBe(true);
    expect(isDeadlock(other)).toBe(false);
  });
});
