import { describe, expect, it } from 'vitest';
import { runCrashTrials, TRIAL_KINDS } from '../rig/crash-trials.ts';
import { freshPgDatabase } from '../rig/pg.ts';
import { postgresTrials, sqliteTrials, type TrialEngine } from '../rig/trial-database.ts';

// Crash trials on every `npm test`: 24 on SQLite (four of each of the six kinds), 12 on PostgreSQL (two of each) and
// 12 on PostgreSQL with a second node running beside the one killed, which carries on; `npm run bench -- --only
// trials` runs 240, 120 and 120. CRASH_SEED replays a run's choices (the kill moments themselves depend on timing).
const seed = Number(process.env['CRASH_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

describe.each([
  { where: 'SQLite', engine: sqliteTrials, perKind: 4, standingNode: false },
  { where: 'PostgreSQL', engine: postgresTrials(freshPgDatabase), perKind: 2, standingNode: false },
  { where: 'two PostgreSQL nodes', engine: postgresTrials(freshPgDatabase), perKind: 2, standingNode: true },
])('crash trials on $where: a service killed with SIGKILL at random moments', (o) => {
  const promise = o.standingNode ? 'on the node left' : 'after each restart';
  it(`keeps every promise ${promise}`, async () => {
    await trials(o);
  }, 600_000);
});

async function trials(o: {
  where: string;
  engine: TrialEngine;
  perKind: number;
  standingNode: boolean;
}): Promise<void> {
  console.log(`crash trials on ${o.where}: CRASH_SEED=${String(seed)}`);
  const tally = await runCrashTrials({
    trials: o.perKind * TRIAL_KINDS.length,
    seed,
    engine: o.engine,
    standingNode: o.standingNode,
    log: (l) => console.log(l),
  });
  console.log(
    `crash trials on ${o.where}: ${JSON.stringify(tally.kinds)} in ${tally.seconds.toFixed(0)} s; refreshes killed after their commit: ${String(tally.refreshesKilledAfterCommit)}`,
  );
  expect(tally.failures).toEqual([]);
  for (const kind of TRIAL_KINDS) expect(tally.kinds[kind].trials).toBe(o.perKind);
  // The harness must actually cut operations short, not only kill idle processes.
  const cut = TRIAL_KINDS.reduce((n, k) => n + tally.kinds[k].killedMidOperation, 0);
  expect(cut).toBeGreaterThanOrEqual(2 * o.perKind);
}
