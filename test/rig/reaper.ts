import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import { join } from 'node:path';

/** A command run (synchronously) after a server had to be SIGKILLed. */
export interface AfterKill {
  command: string;
  args: string[];
}

/** Line protocol between processes.ts and reaper-process.ts (one JSON object per line). */
export type ReaperMessage =
  | { op: 'track'; pid: number; group: boolean; afterKill?: AfterKill }
  | { op: 'untrack'; pid: number }
  | { op: 'dir'; path: string }
  | { op: 'forget-dir'; path: string };

let reaper: ChildProcess | undefined;

/** Tells the per-process reaper about a change; starts it on first use. */
export function notifyReaper(msg: ReaperMessage): void {
  reaper ??= startReaper();
  reaper.stdin?.write(`${JSON.stringify(msg)}\n`);
}

function startReaper(): ChildProcess {
  // Same Node binary as the tests (Node 24 runs the .ts file directly).
  // Detached: its own session, so a Ctrl+C aimed at the test run does not kill
  // the backstop before it has done its job.
  const child = spawn(process.execPath, [join(import.meta.dirname, 'reaper-process.ts')], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  child.on('error', () => undefined); // best effort: the in-process handlers still run
  child.stdin.on('error', () => undefined); // EPIPE if the reaper is already gone
  // Neither the reaper nor its pipe may keep the test process alive.
  child.unref();
  if (child.stdin instanceof Socket) child.stdin.unref();
  return child;
}
