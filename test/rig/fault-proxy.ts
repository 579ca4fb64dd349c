import { createServer, connect, type Server, type Socket } from 'node:net';

/** Which way bytes flow: from the server to the service (`down`), or from the service to the server (`up`). */
export type Direction = 'up' | 'down';

/** What happens to the connections open when a fault is armed (and, while `refuse` is on, to new ones). */
export type Fault =
  /** Both sides closed at once (a reset). */
  | { readonly kind: 'drop' }
  /** Bytes pass until `bytes` more have flowed in `direction`, then both sides are closed mid-stream. */
  | { readonly kind: 'drop-after'; readonly direction: Direction; readonly bytes: number }
  /** Nothing is forwarded for `ms` (held, then delivered); the connection stays open. */
  | { readonly kind: 'stall'; readonly ms: number }
  /** Bytes are forwarded `chunk` at a time with `delayMs` between chunks, until `clear()`. */
  | { readonly kind: 'slow'; readonly chunk: number; readonly delayMs: number };

interface Pair {
  readonly client: Socket;
  readonly server: Socket;
  /** Bytes still allowed in each direction before the pair is cut; Infinity: no limit. */
  budget: Record<Direction, number>;
  held: boolean;
  /** `null`: the sending side ended (half-close), passed on in order. */
  queue: { direction: Direction; data: Buffer | null }[];
  slow: { chunk: number; delayMs: number } | undefined;
  pumping: boolean;
  closed: boolean;
}

export interface FaultProxy {
  readonly port: number;
  /** Connections the proxy accepted (attempts, refused ones included): how often the service dialled. */
  readonly attempts: number;
  /** When each connection attempt came (`Date.now()`), in order. */
  readonly attemptTimes: readonly number[];
  /** Connections open now. */
  readonly open: number;
  /** Applies a fault to every open connection; `future: true` applies it to new connections too, until `clear()`. */
  inject(fault: Fault, opts?: { future?: boolean }): void;
  /** While on, new connections are accepted and closed at once (a server that is down); open ones are dropped. */
  refuse(on: boolean): void;
  /**
   * Holds back, on its connection, the next bytes flowing in `direction` that match `pattern` (and all after them)
   * and resolves once they arrived: the service never sees them until `clear()`. For killing a process at the moment
   * the server answered — the server has done the work, the service has not learnt it.
   */
  holdWhen(direction: Direction, pattern: RegExp): Promise<void>;
  /** Back to passing bytes through, for open and new connections. */
  clear(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy on 127.0.0.1 between the service and a server (Dovecot, the SMTP sink) that cuts, stalls and slows
 * connections on command — mid-FETCH, mid-IDLE, mid-APPEND, mid-DATA, wherever the bytes are at that moment. It
 * forwards bytes untouched otherwise (TLS would pass through as well), so the service runs its real code path.
 * `opts.port`: listen there (a server that comes up where the service was already told to look).
 */
export async function startFaultProxy(
  target: { host: string; port: number },
  opts: { port?: number } = {},
): Promise<FaultProxy> {
  const pairs = new Set<Pair>();
  let attempts = 0;
  const attemptTimes: number[] = [];
  let refusing = false;
  let standing: Fault | undefined;
  const taps: { direction: Direction; pattern: RegExp; seen: () => void }[] = [];

  const cut = (p: Pair) => {
    if (p.closed) return;
    p.closed = true;
    p.client.destroy();
    p.server.destroy();
    pairs.delete(p);
  };

  const deliver = (p: Pair, direction: Direction, data: Buffer): void => {
    if (p.closed) return;
    const budget = p.budget[direction];
    if (data.length >= budget) {
      // Up to the byte the fault names, then the cut.
      if (budget > 0) (direction === 'down' ? p.client : p.server).write(data.subarray(0, budget));
      cut(p);
      return;
    }
    p.budget[direction] = budget - data.length;
    (direction === 'down' ? p.client : p.server).write(data);
  };

  const pump = async (p: Pair): Promise<void> => {
    if (p.pumping) return;
    p.pumping = true;
    try {
      while (!p.closed && !p.held && p.queue.length > 0) {
        const next = p.queue[0]!;
        if (next.data === null) {
          p.queue.shift();
          (next.direction === 'down' ? p.client : p.server).end();
          continue;
        }
        if (p.slow === undefined) {
          p.queue.shift();
          deliver(p, next.direction, next.data);
          continue;
        }
        const piece = next.data.subarray(0, p.slow.chunk);
        if (piece.length === next.data.length) p.queue.shift();
        else next.data = next.data.subarray(p.slow.chunk);
        deliver(p, next.direction, piece);
        await new Promise((resolve) => setTimeout(resolve, p.slow?.delayMs ?? 0));
      }
    } finally {
      p.pumping = false;
    }
  };

  const apply = (p: Pair, fault: Fault): void => {
    switch (fault.kind) {
      case 'drop':
        cut(p);
        return;
      case 'drop-after':
        p.budget[fault.direction] = Math.min(p.budget[fault.direction], fault.bytes);
        return;
      case 'stall':
        p.held = true;
        setTimeout(() => {
          p.held = false;
          void pump(p);
        }, fault.ms).unref();
        return;
      case 'slow':
        p.slow = { chunk: fault.chunk, delayMs: fault.delayMs };
        return;
    }
  };

  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    attempts++;
    attemptTimes.push(Date.now());
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect({ port: target.port, host: target.host, allowHalfOpen: true });
    const p: Pair = {
      client,
      server: upstream,
      budget: { up: Infinity, down: Infinity },
      held: false,
      queue: [],
      slow: undefined,
      pumping: false,
      closed: false,
    };
    pairs.add(p);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    const onData = (direction: Direction) => (data: Buffer) => {
      const tap = taps.findIndex((t) => t.direction === direction && t.pattern.test(data.toString('latin1')));
      if (tap >= 0) {
        p.held = true; // these bytes wait in the queue, with everything after them
        taps.splice(tap, 1)[0]?.seen();
      }
      p.queue.push({ direction, data });
      void pump(p);
    };
    client.on('data', onData('up'));
    upstream.on('data', onData('down'));
    const onEnd = (direction: Direction) => () => {
      p.queue.push({ direction, data: null });
      void pump(p);
    };
    client.on('end', onEnd('up'));
    upstream.on('end', onEnd('down'));
    for (const s of [client, upstream]) {
      s.on('error', () => cut(p));
      s.on('close', () => cut(p));
    }
    if (standing !== undefined) apply(p, standing);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the fault proxy has no port');

  return {
    port: address.port,
    get attempts() {
      return attempts;
    },
    attemptTimes,
    get open() {
      return pairs.size;
    },
    inject(fault, opts = {}) {
      if (opts.future === true) standing = fault;
      for (const p of [...pairs]) apply(p, fault);
    },
    refuse(on) {
      refusing = on;
      if (on) for (const p of [...pairs]) cut(p);
    },
    holdWhen(direction, pattern) {
      return new Promise<void>((seen) => taps.push({ direction, pattern, seen }));
    },
    clear() {
      standing = undefined;
      taps.length = 0;
      refusing = false;
      for (const p of pairs) {
        p.budget = { up: Infinity, down: Infinity };
        p.slow = undefined;
        p.held = false;
        void pump(p);
      }
    },
    async close() {
      for (const p of [...pairs]) cut(p);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
