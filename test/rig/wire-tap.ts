import { connect, createServer, type Socket } from 'node:net';

/** A TCP relay on 127.0.0.1 that records what each client sent upstream, to read a protocol's commands on the wire. */
export interface WireTap {
  readonly port: number;
  /** Client-to-server bytes of each connection (latin1), in the order the connections came. */
  readonly sent: readonly string[];
  /** Server-to-client byte counts of each connection, in the same order. */
  readonly received: readonly number[];
  close(): Promise<void>;
}

export async function startWireTap(target: { host: string; port: number }): Promise<WireTap> {
  const sent: string[] = [];
  const received: number[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const i = sent.push('') - 1;
    received.push(0);
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    client.on('data', (d: Buffer) => {
      sent[i] = `${sent[i] ?? ''}${d.toString('latin1')}`;
      upstream.write(d);
    });
    upstream.on('data', (d: Buffer) => {
      received[i] = (received[i] ?? 0) + d.length;
      client.write(d);
    });
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      a.on('error', () => b.destroy());
      a.on('close', () => b.destroy());
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    sent,
    received,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
