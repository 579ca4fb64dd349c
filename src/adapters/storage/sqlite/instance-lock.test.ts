import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../../test/support/temp-dir.ts';
import { holdInstanceLock, InstanceRunningError } from './instance-lock.ts';

// Across processes (and after kill -9): test/e2e/process.test.ts.
describe('one service per SQLite database', () => {
  it('refuses a second holder until the first releases, and keeps the lock file owner-only', () => {
    const db = `${tempDir('instance-')}/inbox-triage.db`;
    const first = holdInstanceLock(db);
    expect(() => holdInstanceLock(db)).toThrow(InstanceRunningError);
    expect(statSync(`${db}.instance`).mode & 0o777).toBe(0o600);
    first.release();
    holdInstanceLock(db).release();
  });

  it('needs no lock for a database in memory', () => {
    const a = holdInstanceLock(':memory:');
    const b = holdInstanceLock(':memory:');
    a.release();
    b.release();
  });
});
