import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface ModelTrials {
  readonly seed: number;
  readonly runs: number;
  readonly steps: number;
  readonly passed: boolean;
  readonly seconds: number;
  /** The end of vitest's output when it failed: the counterexample, its seed and path. */
  readonly report: string;
}

/**
 * The safety model (test/model/triage-model.test.ts) at length (issue 21, S1): `runs` runs of at most 25 commands,
 * two competing agents on the demo inbox, through vitest as `npm test` runs it.
 */
export function modelTrials(runs: number): Promise<ModelTrials> {
  const root = join(import.meta.dirname, '..');
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        join(root, 'node_modules', 'vitest', 'vitest.mjs'),
        'run',
        'test/model/triage-model.test.ts',
        '-t',
        'never breaks',
      ],
      {
        cwd: root,
        env: { ...process.env, MODEL_RUNS: String(runs), MODEL_TIMEOUT_MS: String(4 * 3600_000) },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      const done = /model: seed (\d+), (\d+) runs, (\d+) steps, no rule broken/.exec(out);
      const begun = /model: seed (\d+), (\d+) runs/.exec(out);
      resolve({
        seed: Number(done?.[1] ?? begun?.[1] ?? 0),
        runs,
        steps: Number(done?.[3] ?? 0),
        passed: code === 0 && done !== null,
        seconds: (performance.now() - started) / 1000,
        report: code === 0 ? '' : out.slice(-4000),
      });
    });
  });
}
