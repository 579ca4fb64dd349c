import { execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import type { AfterKill } from './reaper.ts';
import { notifyReaper } from './reaper.ts';

/**
 * Registry of server processes and temp dirs started by the rig.
 *
 * Test runners do not always reach afterAll/teardown (a hook times out, a worker
 * is told to stop, someone presses Ctrl+C). A leaked Dovecot or PostgreSQL keeps
 * ports and temp dirs alive and confuses the next run, so every spawned server
 * is registered here and a process 'exit' / SIGINT / SIGTERM handler SIGKILLs
 * whatever is still alive and removes the temp dirs. For deaths no handler sees
 * (SIGKILL, vitest worker threads) a detached reaper process does the same when
 * its stdin pipe from this process closes (see reaper-process.ts).
 *
 * Servers are spawned with `detached: true`, which makes each one the leader of
 * its own process group; killing the group (-pid) also takes out the worker
 * processes Dovecot and PostgreSQL fork, even if the leader died first.
 */

interface Entry {
  /** kill the whole process group (-pid) rather than only the pid */
  group: boolean;
  /** cleanup to run after an emergency SIGKILL (e.g. release SysV shared memory) */
  afterKill: AfterKill | undefined;
}

interface Registry {
  children: Map<number, Entry>;
  tempDirs: Set<string>;
}

// Kept on globalThis because vitest may evaluate this module more than once in
// one process (module isolation per test file); one registry and one set of
// process listeners per process (or worker thread) is what we want.
const REGISTRY: unique symbol = Symbol.for('inbox-triage.test-rig.process-registry');
type RigGlobal = typeof globalThis & { [REGISTRY]?: Registry };

function registry(): Registry {
  const g = globalThis as RigGlobal;
  const existing = g[REGISTRY];
  if (existing) return existing;
  const created: Registry = { children: new Map(), tempDirs: new Set() };
  g[REGISTRY] = created;
  installHandlers();
  return created;
}

function installHandlers(): void {
  process.on('exit', killTracked);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const onSignal = (): void => {
      killTracked();
      // A signal listener replaces Node's default "exit on signal". When we are
      // the only listener, restore the default and re-raise so the process still
      // dies with the right status; otherwise the runner's own handler decides.
      if (process.listenerCount(signal) === 1) {
        process.removeListener(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
}

function sendSignal(pid: number, group: boolean, signal: NodeJS.Signals): void {
  try {
    process.kill(group ? -pid : pid, signal);
  } catch (err) {
    // ESRCH: already gone, which is the outcome we wanted.
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

function forceKill(pid: number, entry: Entry): void {
  sendSignal(pid, entry.group, 'SIGKILL');
  if (entry.afterKill) execFileSync(entry.afterKill.command, entry.afterKill.args, { stdio: 'ignore' });
}

/** Registers a spawned server so it is SIGKILLed if the test process exits first. */
export function track<T extends ChildProcess>(
  child: T,
  opts: { group?: boolean; afterKill?: AfterKill } = {},
): T {
  const pid = child.pid;
  if (pid === undefined) return child; // spawn failed; see watchSpawnErrors
  const reg = registry();
  const entry: Entry = { group: opts.group ?? true, afterKill: opts.afterKill };
  reg.children.set(pid, entry);
  notifyReaper({
    op: 'track',
    pid,
    group: entry.group,
    ...(entry.afterKill ? { afterKill: entry.afterKill } : {}),
  });
  child.once('exit', () => {
    reg.children.delete(pid);
    notifyReaper({ op: 'untrack', pid });
  });
  return child;
}

const spawnErrors = new WeakMap<ChildProcess, Error>();

/**
 * Call right after spawn(): a failed spawn (ENOENT, EACCES) arrives as an
 * 'error' event, which would crash the process if nobody listened. It is kept
 * here for deathReason() instead.
 */
export function watchSpawnErrors(child: ChildProcess): void {
  child.once('error', (err) => spawnErrors.set(child, err));
}

/** Why a server is not running, or undefined while it is alive. */
export function deathReason(child: ChildProcess): string | undefined {
  const spawnError = spawnErrors.get(child);
  if (spawnError) return `could not be started: ${spawnError.message}`;
  if (child.signalCode !== null) return `was killed by ${child.signalCode}`;
  if (child.exitCode !== null) return `exited with code ${child.exitCode}`;
  return undefined;
}

/** Registers a temp dir to be removed at process exit if nobody cleaned it up. */
export function trackTempDir(dir: string): void {
  registry().tempDirs.add(dir);
  notifyReaper({ op: 'dir', path: dir });
}

/** Removes a temp dir now and forgets it. */
export function removeTempDir(dir: string): void {
  registry().tempDirs.delete(dir);
  notifyReaper({ op: 'forget-dir', path: dir });
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

/** Synchronous last-resort cleanup; safe to call from an 'exit' handler. */
function killTracked(): void {
  const reg = registry();
  for (const [pid, entry] of reg.children) {
    try {
      forceKill(pid, entry);
    } catch {
      // keep going: the other servers still need killing
    }
  }
  reg.children.clear();
  for (const dir of reg.tempDirs) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // best effort: a dying process may still hold files open
    }
  }
  reg.tempDirs.clear();
}

function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Stops a tracked child: sends `signal`, waits up to `graceMs` for it to exit,
 * then SIGKILLs its process group and waits for the exit event.
 */
export async function terminate(
  child: ChildProcess,
  opts: { signal?: NodeJS.Signals; graceMs?: number } = {},
): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || hasExited(child)) return;
  const entry = registry().children.get(pid) ?? { group: true, afterKill: undefined };
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  sendSignal(pid, false, opts.signal ?? 'SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), opts.graceMs ?? 3000);
  });
  const outcome = await Promise.race([exited.then(() => 'exited' as const), timedOut]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    forceKill(pid, entry);
    await exited;
  } else if (entry.group) {
    // The leader is gone; make sure no forked worker of it survives.
    sendSignal(pid, true, 'SIGKILL');
  }
}
