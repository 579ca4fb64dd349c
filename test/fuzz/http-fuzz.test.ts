import { describe, expect, it } from 'vitest';
import { DATABASE_WORDS } from '../support/database-words.ts';
import { fuzz } from './http-fuzz.ts';

/**
 * 10,000 generated requests against the real process (issue 21, R3); `npm run bench -- --only fuzz` sends 100,000.
 * A failure prints the seed and the requests: `FUZZ_SEED=<seed>` replays the run.
 */
describe('the service process under 10,000 generated requests', () => {
  it('tells an answer in a database’s words', () => {
    // What answers said before their fixes, on either database, and what answers may say.
    for (const leaked of [
      'The mailbox could not be synced right now: deadlock detected',
      'UNIQUE constraint failed: folders.inbox_id, folders.path',
      'duplicate key value violates unique constraint "folders_inbox_path_uq"',
      'insert or update on table "messages" violates foreign key constraint "messages_inbox_id_fkey"',
      'SQLITE_BUSY: database is locked',
    ])
      expect(DATABASE_WORDS.test(leaked), leaked).toBe(true);
    for (const fine of [
      'No message with this id in this inbox.',
      "The arguments do not match this tool's input schema: items.0.messageId: Invalid input",
      'This refresh token was already used; the sign-in is revoked. Sign in again.',
    ])
      expect(DATABASE_WORDS.test(fine), fine).toBe(false);
  });

  it('answers every one below 500 within 5 s, in its own words, stays up, and logs no stack trace', async () => {
    const seed = Number(process.env['FUZZ_SEED'] ?? Date.now() % 1_000_000);
    const r = await fuzz({ count: 10_000, concurrency: 8, seed });
    const report = JSON.stringify(
      { seed, failures: r.failures.slice(0, 5), badLogLines: r.badLogLines.slice(0, 5) },
      null,
      1,
    );
    expect(r.requests, report).toBe(10_000);
    expect(r.failures, report).toEqual([]);
    expect(r.badLogLines, report).toEqual([]);
    expect(r.alive, report).toBe(true);
    // every surface was reached, and not only with refusals
    for (const kind of ['mcp', 'api', 'oauth', 'web']) expect(r.byKind[kind] ?? 0).toBeGreaterThan(500);
    expect(r.byStatus['200'] ?? 0).toBeGreaterThan(1000);
    console.log(
      `fuzz seed ${String(seed)}: ${JSON.stringify({ byKind: r.byKind, byStatus: r.byStatus, slowestMs: r.slowestMs, resent: r.resent })}`,
    );
  }, 300_000);
});
