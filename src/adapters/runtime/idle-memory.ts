import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

export interface IdleMemoryRelease {
  /** How many times memory has been given back so far. */
  releases(): number;
  stop(): void;
}

export interface IdleMemoryOptions {
  /** How often the event loop's use is sampled. */
  readonly intervalMs?: number;
  /** How long the loop must have been quiet (under `quietUtilization` in every sample) before a release. */
  readonly idleMs?: number;
  readonly quietUtilization?: number;
  /** Heap V8 holds beyond what is live (slack), in bytes, worth giving back. */
  readonly minSlackBytes?: number;
  /** After each release: how long it stopped the loop, and the slack before and after it, in bytes. */
  readonly onRelease?: (r: { ms: number; before: number; after: number }) => void;
}

type Gc = (o: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * Gives memory back to the system once the service has gone quiet (decision 0030). Under load V8 grows its young
 * generation to 64 MB of semi-spaces (and keeps old-space pages) — right for throughput, where a smaller young
 * generation costs `list_messages` a third of its calls (decision 0027) — and then keeps all of it resident forever:
 * its own memory reducer does not shrink the young generation of a process that merely stops allocating. Here, after
 * `idleMs` with the event loop under `quietUtilization`, and only if the heap holds `minSlackBytes` more than is live,
 * one full "last resort" collection runs (the one V8 runs on a low-memory notification: it compacts and shrinks the
 * young generation). The next burst grows it again. A release stops the loop ~0.1 s once per quiet period.
 *
 * Node offers the low-memory collection only through `gc`, which exists with `--expose-gc`; setting the flag at run
 * time exposes it in new contexts only, so `gc` is taken from a context of its own and never appears in ours.
 */
export function startIdleMemoryRelease(opts: IdleMemoryOptions = {}): IdleMemoryRelease {
  const intervalMs = opts.intervalMs ?? 5000;
  const idleMs = opts.idleMs ?? 10_000;
  const quiet = opts.quietUtilization ?? 0.02;
  const minSlack = opts.minSlackBytes ?? 8 * 1024 * 1024;
  let gc: Gc | undefined;
  let count = 0;
  let quietSince: number | undefined;
  let floor = 0; // the slack a release could not give back; a new one waits for `minSlack` more than this
  let last = performance.eventLoopUtilization();

  const slack = (): number => {
    const h = v8.getHeapStatistics();
    return h.total_heap_size - h.used_heap_size;
  };

  const tick = setInterval(() => {
    const now = performance.now();
    const elu = performance.eventLoopUtilization(last);
    last = performance.eventLoopUtilization();
    if (elu.utilization >= quiet) {
      quietSince = undefined;
      return;
    }
    quietSince ??= now - intervalMs;
    if (now - quietSince < idleMs) return;
    const before = slack();
    if (before < floor + minSlack) return;
    if (gc === undefined) {
      v8.setFlagsFromString('--expose-gc');
      gc = vm.runInNewContext('gc') as Gc;
    }
    const t = performance.now();
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const ms = performance.now() - t;
    const after = slack();
    floor = after;
    count += 1;
    last = performance.eventLoopUtilization(); // the collection itself is not the service's work
    opts.onRelease?.({ ms, before, after });
  }, intervalMs);
  tick.unref();

  return {
    releases: () => count,
    stop: () => {
      clearInterval(tick);
    },
  };
}
