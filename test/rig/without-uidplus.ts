import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A proxy in front of an IMAP server that takes the UIDPLUS response codes (`[COPYUID …]`, `[APPENDUID …]`, RFC 4315)
 * out of its answers, for a server that has no UIDPLUS at all: Dovecot, told to advertise only IMAP4rev1
 * (`imap_capability`), still says where every copied and appended message landed, so without this the service's
 * paths for servers that do not (hMailServer, older Exchange and UW-IMAP) never ran. Answers are read line by line;
 * only a status line (`tag OK …`, `* OK …`) carrying one of those codes is changed, never the bytes of a message.
 */
export async function withoutUidplus(target: number): Promise<{ port: number; close: () => Promise<void> }> {
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
    client.pipe(upstream);
    let pending = Buffer.alloc(0);
    upstream.on('data', (data: Buffer) => {
      pending = Buffer.concat([pending, data]);
      let end = pending.lastIndexOf('\r\n');
      if (end === -1) return;
      end += 2;
      const lines = pending.subarray(0, end).toString('latin1');
      pending = pending.subarray(end);
      client.write(Buffer.from(lines.replace(STATUS_WITH_CODE, '$1'), 'latin1'));
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

/** A status line's UIDPLUS code, with the text after it kept: `a OK [COPYUID 1 2 3] Done` → `a OK Done`. */
const STATUS_WITH_CODE = /^([A-Za-z0-9.*]+ OK )\[(?:COPYUID|APPENDUID) [^\]\r\n]*\] ?/gm;
