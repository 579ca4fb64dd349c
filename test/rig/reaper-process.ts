/**
 * Standalone backstop for processes.ts (run as `node reaper-process.ts`).
 *
 * A test process's 'exit' handler cannot run when the process is SIGKILLed, and
 * a vitest worker *thread* never gets one. So each test process also starts this
 * small detached process and tells it, over its stdin, which servers and temp
 * dirs are live. When stdin closes — the parent is gone, however it went — it
 * kills whatever is still registered, removes the dirs and exits.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { ReaperMessage } from './reaper.ts';

const children = new Map<number, Extract<ReaperMessage, { op: 'track' }>>();
const dirs = new Set<string>();

for await (const line of createInterface({ input: process.stdin })) {
  let msg: ReaperMessage;
  try {
    msg = JSON.parse(line) as ReaperMessage;
  } catch {
    continue; // a torn line from a dying parent; ignore it
  }
  if (msg.op === 'track') children.set(msg.pid, msg);
  else if (msg.op === 'untrack') children.delete(msg.pid);
  else if (msg.op === 'dir') dirs.add(msg.path);
  else dirs.delete(msg.path);
}

for (const child of children.values()) {
  try {
    process.kill(child.group ? -child.pid : child.pid, 'SIGKILL');
    if (child.afterKill) execFileSync(child.afterKill.command, child.afterKill.args, { stdio: 'ignore' });
  } catch {
    // already gone
  }
}
for (const dir of dirs) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
