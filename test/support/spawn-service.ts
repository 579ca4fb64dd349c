import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../rig/free-port.ts';
import { track } from '../rig/processes.ts';

export const BIN = join(import.meta.dirname, '..', '..', 'bin', 'inbox-triage.js');

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly baseUrl: string;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves with the exit code (or the signal name) once the process has exited. */
  readonly exited: Promise<number | string>;
}

/** Runs the real CLI as a child process with the given environment (merged over a clean minimal one). */
export function runService(args: string[], env: Record<string, string>): ServiceProcess & { port?: number } {
  let out = '';
  let errText = '';
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env['PATH'] ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (errText += d.toString()));
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
  return {
    child,
    baseUrl: `http://127.0.0.1:${env['PORT'] ?? ''}`,
    stdout: () => out,
    stderr: () => errText,
    exited,
  };
}

export async function startService(
  env: Record<string, string>,
  listenWithinMs = 15_000,
): Promise<ServiceProcess & { startMs: number }> {
  const port = await freePort();
  const started = performance.now();
  const svc = runService(['serve'], { PORT: String(port), ...env });
  const deadline = Date.now() + listenWithinMs;
  for (;;) {
    if (svc.child.exitCode !== null)
      throw new Error(`service exited early:\n${svc.stderr()}\n${svc.stdout()}`);
    try {
      const res = await fetch(`${svc.baseUrl}/healthz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`service did not listen within ${String(listenWithinMs)} ms:\n${svc.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { ...svc, startMs: performance.now() - started };
}

/** A command that runs to its end (`account`, `backup`, `migrate`…): its exit code and what it printed. */
export async function runCommand(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number | string; out: string; err: string }> {
  const p = runService(args, env);
  const code = await p.exited;
  return { code, out: p.stdout(), err: p.stderr() };
}
