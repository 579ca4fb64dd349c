import { describe, expect, it } from 'vitest';
import { runCrashTrials, TRIAL_KINDS } from '../rig/crash-trials.ts';

// 24 crash trials (four of each of the six kinds) on every `npm test`; `npm run bench -- --only trials` runs 240.
// CRASH_SEED replays a run's choices (the kill moments themselves depend on timing).
const seed = Number(process.env['CRASH_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

describe('crash trials: the service killed with SIGKILL at random moments', () => {
  it('keeps every promise after each restart', async () => {
    console.log(`crash trials: CRASH_SEED=${String(seed)}`);
    const tally = await runCrashTrials({ trials: 24, seed, log: (l) => console.log(l) });
    console.log(
      `crash trials: ${JSON.stringify(tally.kinds)} in ${tally.seconds.toFixed(0)} s; refreshes killed after their commit: ${String(tally.refreshesKilledAfterCommit)}`,
    );
    expect(tally.failures).toEqual([]);
    for (const kind of TRIAL_KINDS) expect(tally.kinds[kind].trials).toBe(4);
    // The harness must actually cut operations short, not only kill idle processes.
    const cut = TRIAL_KINDS.reduce((n, k) => n + tally.kinds[k].killedMidOperation, 0);
    expect(cut).toBeGreaterThanOrEqual(8);
  }, 600_000);
});
