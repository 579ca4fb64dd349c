import { connect, createServer, type Server, type Socket } from 'node:net';

/** What a relay does with one client's connection. */
export interface RelayedConnection {
  /** The client's bytes: forwarded as they are, unless this answers `false` (then they are the handler's own). */
  fromClient?(data: Buffer, client: Socket): boolean;
  /** The server's answers, whole lines at a time (latin1, each with its CRLF): what the client gets instead. */
  fromServer(lines: string): string;
}

/**
 * A TCP relay on 127.0.0.1 in front of a line protocol's server (IMAP here), for a server that answers differently
 * from the one under it: each connection gets its own handler (`connection`), which may rewrite the server's lines
 * or answer the client itself. A line the server split across packets is handed over whole.
 */
export async function lineRelay(
  target: number,
  connection: () => RelayedConnection,
): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect({ host: '127.0.0.1', port: target });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    const handler = connection();
    client.on('data', (data: Buffer) => {
      if (handler.fromClient?.(data, client) !== false) upstream.write(data);
    });
    let pending = Buffer.alloc(0);
    upstream.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      let end = pending.lastIndexOf('\r\n');
      if (end === -1) return;
      end += 2;
      const lines = pending.subarray(0, end).toString('latin1');
      pending = pending.subarray(end);
      client.write(Buffer.from(handler.fromServer(lines), 'latin1'));
    });
    upstream.on('end', () => client.end(pending));
    client.on('end', () => upstream.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
