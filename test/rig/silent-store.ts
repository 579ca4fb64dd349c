import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A proxy in front of an IMAP server that drops the untagged FETCH answers to a STORE, for a server that takes RFC
 * 3501's "SHOULD send an untagged FETCH" (§6.4.6) as leave to send none: the service then cannot learn from the
 * answer which messages a flag change found, and must ask (decision 0149). Only FETCH lines that arrive while one of
 * the client's STOREs is unanswered are dropped; a STORE's FETCH carries flags, never a literal, so no message bytes
 * are touched. `stores` counts the STOREs seen. While `refuseSearch(true)`, it answers every UID SEARCH `NO` itself, as
 * a server whose search is out of service does.
 */
export async function silentStore(target: number): Promise<{
  port: number;
  stores: () => number;
  refuseSearch: (on: boolean) => void;
  close: () => Promise<void>;
}> {
  const sockets = new Set<Socket>();
  let stores = 0;
  let refusing = false;
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
    const storing = new Set<string>();
    client.on('data', (data: Buffer) => {
      const text = data.toString('latin1');
      const search = refusing ? /^(\S+) UID SEARCH .*\r\n$/i.exec(text) : null;
      if (search !== null) {
        client.write(`${search[1]!} NO [UNAVAILABLE] Search is out of service\r\n`);
        return;
      }
      for (const m of text.matchAll(/^(\S+) (?:UID )?STORE /gim)) {
        storing.add(m[1]!);
        stores++;
      }
      upstream.write(data);
    });
    let pending = Buffer.alloc(0);
    upstream.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      let end = pending.lastIndexOf('\r\n');
      if (end === -1) return;
      end += 2;
      const lines = pending
        .subarray(0, end)
        .toString('latin1')
        .split(/(?<=\r\n)/);
      pending = pending.subarray(end);
      const kept = lines.filter((line) => {
        const done = /^(\S+) (?:OK|NO|BAD)\b/i.exec(line);
        if (done !== null) storing.delete(done[1]!);
        return storing.size === 0 || !/^\* \d+ FETCH \(/i.test(line);
      });
      client.write(Buffer.from(kept.join(''), 'latin1'));
    });
    upstream.on('end', () => client.end(pending));
    client.on('end', () => upstream.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    stores: () => stores,
    refuseSearch: (on) => {
      refusing = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
