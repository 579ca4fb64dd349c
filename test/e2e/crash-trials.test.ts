import { describe, expect, it } from 'vitest';
import { runCrashTrials, TRIAL_KINDS } from '../rig/crash-trials.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { postgresTrials, sqliteTrials, type TrialEngine } from '../rig/trial-database.ts';

// Crash trials on every `npm test`: 24 on SQLite (four of each of the six kinds) and 12 on PostgreSQL (two of each);
// `npm run bench -- --only trials` runs 240 and 120. CRASH_SEED replays a run's choices (the kill moments themselves
// depend on timing).
const seed = Number(process.env['CRASH_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

describe.each([
  { engine: sqliteTrials, perKind: 4 },
  { engine: postgresTrials(freshPgDatabase), perKind: 2 },
])(
  'crash trials on $engine.name: the service killed with SIGKILL at random moments',
  ({ engine, perKind }) => {
    it('keeps every promise after each restart', async () => {
      await trials(engine, perKind);
    }, 600_000);
  },
);

async function trials(engine: TrialEngine, perKind: number): Promise<void> {
  console.log(`crash trials on ${engine.name}: CRASH_SEED=${String(seed)}`);
  const tally = await runCrashTrials({
    trials: perKind * TRIAL_KINDS.length,
    seed,
    engine,
    log: (l) => console.log(l),
  });
  console.log(
    `crash trials on ${engine.name}: ${JSON.stringify(tally.kinds)} in ${tally.seconds.toFixed(0)} s; refreshes killed after their commit: ${String(tally.refreshesKilledAfterCommit)}`,
  );
  expect(tally.failures).toEqual([]);
  for (const kind of TRIAL_KINDS) expect(tally.kinds[kind].trials).toBe(perKind);
  // The harness must actually cut operations short, not only kill idle processes.
  const cut = TRIAL_KINDS.reduce((n, k) => n + tally.kinds[k].killedMidOperation, 0);
  expect(cut).toBeGreaterThanOrEqual(2 * perKind);
}
