import { describe, expect, it } from 'vitest';
import { CONVERGENCE_KINDS, runConvergenceTrials } from '../rig/convergence-trials.ts';

// A hundred cut-connection trials (issue 21, R2) on every `npm test`, the same as `npm run trials` reports.
// CONVERGENCE_SEED replays a run's choices (where each cut falls); timing varies.
const seed = Number(process.env['CONVERGENCE_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

describe('convergence trials: connections to the mail servers cut, stalled and slowed', () => {
  it('the index converges to the mailbox after every fault, by itself', async () => {
    console.log(`convergence trials: CONVERGENCE_SEED=${String(seed)}`);
    const tally = await runConvergenceTrials({ trials: 100, seed });
    console.log(`convergence trials: ${JSON.stringify(tally.kinds)} in ${tally.seconds.toFixed(0)} s`);
    expect(tally.failures).toEqual([]);
    for (const kind of CONVERGENCE_KINDS) expect(tally.kinds[kind].converged).toBeGreaterThanOrEqual(11);
  }, 900_000);
});
