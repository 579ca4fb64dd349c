import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface ModelTrials {
  /** Each batch's seed (replay one with `FC_SEED=<seed> MODEL_RUNS=<batchRuns>`). */
  readonly seeds: readonly number[];
  readonly runs: number;
  readonly steps: number;
  readonly passed: boolean;
  readonly seconds: number;
  /** The end of vitest's output when a batch failed: the counterexample, its seed and path. */
  readonly report: string;
}

interface Batch {
  readonly seed: number;
  readonly steps: number;
  readonly passed: boolean;
  readonly report: string;
}

/**
 * Where the model's agents work — each suite of test/model/triage-model.test.ts: the demo inbox; the demo inbox on
 * PostgreSQL with each agent on a node of its own; an IMAP inbox on Dovecot with the SMTP and https sinks; Dovecot as a
 * plain IMAP4rev1 server, and with its folders under INBOX; Microsoft 365 (the Graph stub) and Gmail (the emulator),
 * each also with the agents on two PostgreSQL nodes.
 */
export type ModelMailbox =
  'demo' | 'demo-pg' | 'dovecot' | 'plain-imap' | 'under-inbox' | 'graph' | 'gmail' | 'graph-pg' | 'gmail-pg';

// vitest's `-t` filters on titles cut at 40 characters ("the demo inbox on PostgreSQL, each on a…").
const SUITE: Record<ModelMailbox, string> = {
  // Not the PostgreSQL two-node suite, whose name also starts "the demo inbox".
  demo: 'two agents on the demo inbox > never breaks',
  'demo-pg': 'the demo inbox on PostgreSQL.*never breaks',
  dovecot: 'an IMAP inbox on Dovecot.*never breaks',
  'plain-imap': 'a plain IMAP4rev1 server.*never breaks',
  'under-inbox': 'folders under INBOX.*never breaks',
  graph: 'a Microsoft 365 inbox.*never breaks',
  gmail: 'a Gmail inbox.*never breaks',
  'graph-pg': 'Graph, each agent on a PostgreSQL.*never breaks',
  'gmail-pg': 'Gmail, each agent on a PostgreSQL.*never breaks',
};

/** One vitest process: `runs` runs of the safety model on a fresh app and mailbox. */
function batch(where: ModelMailbox, runs: number, seed: number): Promise<Batch> {
  const root = join(import.meta.dirname, '..');
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        join(root, 'node_modules', 'vitest', 'vitest.mjs'),
        'run',
        'test/model/triage-model.test.ts',
        '-t',
        SUITE[where],
      ],
      {
        cwd: root,
        env: {
          ...process.env,
          MODEL_RUNS: String(runs),
          FC_SEED: String(seed),
          MODEL_TIMEOUT_MS: String(3600_000),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      const done = /model: seed (\d+), (\d+) runs, (\d+) steps, no rule broken/.exec(out);
      resolve({
        seed,
        steps: Number(done?.[3] ?? 0),
        passed: code === 0 && done !== null,
        report: code === 0 ? '' : failureReport(out.replace(/\u001b\[[0-9;]*m/g, '')),
      });
    });
  });
}

/**
 * fast-check's own lines (the failing run's seed and whole path, the shrunk commands) and the end of the output (the
 * error and where the index and the mailbox had the message): a failure's report is read to replay it, and the path
 * of a long shrink ran past the output's last 4,000 characters (the seed-204662483 failure on Dovecot kept "481:8").
 */
function failureReport(out: string): string {
  const at = out.indexOf('Property failed after');
  const head = at < 0 ? '' : `${out.slice(at, at + 3000)}\n…\n`;
  return head + out.slice(-4000);
}

/**
 * The safety model (test/model/triage-model.test.ts) at length (issue 21, S1): batches of `batchRuns` runs of at
 * most 25 commands, each batch in a fresh process on a fresh mailbox (one app's state grows run by run, and a
 * single long batch slowed to a crawl), two competing agents, until `minSteps` steps have run or a batch fails.
 */
export async function modelTrials(o: {
  where: ModelMailbox;
  minSteps: number;
  batchRuns: number;
}): Promise<ModelTrials> {
  const started = performance.now();
  const seeds: number[] = [];
  let steps = 0;
  let runs = 0;
  while (steps < o.minSteps) {
    const seed = Math.floor(Math.random() * 2 ** 31);
    seeds.push(seed);
    const b = await batch(o.where, o.batchRuns, seed);
    runs += o.batchRuns;
    steps += b.steps;
    if (!b.passed)
      return {
        seeds,
        runs,
        steps,
        passed: false,
        seconds: (performance.now() - started) / 1000,
        report: b.report,
      };
  }
  return { seeds, runs, steps, passed: true, seconds: (performance.now() - started) / 1000, report: '' };
}
