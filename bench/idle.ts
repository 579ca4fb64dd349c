import { readFileSync } from 'node:fs';
import { startService } from '../test/support/spawn-service.ts';
import { tempDir } from '../test/support/temp-dir.ts';
import { cpuTicks } from './processes.ts';

export interface IdleSample {
  /** Process start to the first 200 from /readyz. */
  readonly readyMs: number;
  readonly rssMb: number;
  readonly threads: number;
  /** The quiet-time collections (decision 0030) the service had logged by the reading, with the heap slack it left. */
  readonly releases: readonly { before: number; after: number }[];
  /** CPU the process used while the bench waited, in ms, and the requests it logged meanwhile (none are sent). */
  readonly waitCpuMs: number;
  readonly waitRequests: number;
}

/**
 * A fresh `serve` with only the demo inbox (a new data directory each time), measured from outside: time to ready,
 * then resident memory and threads after 25 s idle, read from /proc. By then the WAL checkpoint thread, started by
 * the first sync's writes, has ended (it runs until 10 s after the last write), and the service, quiet for 10 s, has
 * given back the memory start-up grew (decision 0030).
 */
export async function idleService(runs: number): Promise<IdleSample[]> {
  const out: IdleSample[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const svc = await startService({ DATA_DIR: tempDir('idle-'), LOG_LEVEL: 'debug' });
    try {
      for (;;) {
        const res = await fetch(`${svc.baseUrl}/readyz`).catch(() => undefined);
        if (res?.ok === true) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const readyMs = performance.now() - started;
      const cpu0 = cpuTicks(svc.child.pid ?? 0);
      const logged = svc.stdout().length;
      await new Promise((r) => setTimeout(r, 25_000));
      const waitCpuMs = (cpuTicks(svc.child.pid ?? 0) - cpu0) * 10;
      const waitRequests = svc
        .stdout()
        .slice(logged)
        .split('\n')
        .filter((l) => l.includes('"msg":"request"')).length;
      const status = readFileSync(`/proc/${String(svc.child.pid)}/status`, 'utf8');
      out.push({
        readyMs,
        rssMb: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024,
        threads: Number(/Threads:\s+(\d+)/.exec(status)?.[1] ?? 0),
        releases: svc
          .stdout()
          .split('\n')
          .filter((l) => l.includes('"idle: memory given back"'))
          .map((l) => {
            const r = JSON.parse(l) as { slackBeforeMb: number; slackAfterMb: number };
            return { before: r.slackBeforeMb, after: r.slackAfterMb };
          }),
        waitCpuMs,
        waitRequests,
      });
    } finally {
      svc.child.kill('SIGTERM');
      await svc.exited;
    }
  }
  return out;
}
