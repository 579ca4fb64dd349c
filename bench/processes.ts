import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * Starts a child process and resolves once it prints `ready` (or a line containing `marker`). `BENCH_NODE_ARGS`
 * (space-separated) go to every Node process a bench starts, for profiling what it measures: for example
 * `BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"` (a profile is written by a process that exits on its own
 * terms — the service on SIGTERM; NODE_OPTIONS refuses `--cpu-prof`).
 */
export function startProcess(
  args: string[],
  env: Record<string, string>,
  marker = 'ready',
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const nodeArgs = process.env['BENCH_NODE_ARGS']?.split(' ').filter((a) => a !== '') ?? [];
    const child = spawn(process.execPath, [...nodeArgs, ...args], {
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let seen = '';
    const onData = (d: Buffer) => {
      seen += d.toString();
      if (seen.includes(marker)) {
        child.stdout.off('data', onData);
        child.stdout.resume(); // keep draining so the child never blocks on a full pipe
        resolve(child);
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) =>
      reject(new Error(`${args.join(' ')} exited with ${String(code)} before ready:\n${seen}`)),
    );
  });
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** CPU a process has used so far (all its threads, user and system), in clock ticks: 100 a second here. */
export function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${String(pid)}/stat`, 'utf8')
    .split(') ')[1]!
    .split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime, stime
}
