import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImapConnector } from '../../src/adapters/mail/imap/imap-connector.ts';
import { MAX_SERVER_LITERAL_BYTES } from '../../src/adapters/mail/imap/open-client.ts';
import { MailProviderError } from '../../src/core/mail/mail-ports.ts';

// Decision 0100: an IMAP server is named by whoever adds an inbox. One that answers a fetch with a literal of a
// gigabyte was read to the end — imapflow's own limit is 1 GB a literal, 2 GB an answer — the process holding it
// all. Now the service takes no literal larger than the largest it asks for, and drops the connection at the
// announcement, before reading it.
describe('a server announcing a literal larger than anything asked for', () => {
  let server: Server;
  let port: number;
  let written = 0;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
      socket.write('* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] scripted server ready\r\n');
      let pending = '';
      socket.on('data', (d: Buffer) => {
        pending += d.toString('latin1');
        for (let nl = pending.indexOf('\r\n'); nl !== -1; nl = pending.indexOf('\r\n')) {
          const line = pending.slice(0, nl);
          pending = pending.slice(nl + 2);
          const [tag = '*', command = ''] = line.split(' ');
          const verb = (command.toUpperCase() === 'UID' ? (line.split(' ')[2] ?? '') : command).toUpperCase();
          if (verb === 'CAPABILITY') socket.write(`* CAPABILITY IMAP4rev1 AUTH=PLAIN\r\n${tag} OK done\r\n`);
          else if (verb === 'SELECT' || verb === 'EXAMINE')
            socket.write(
              `* 1 EXISTS\r\n* OK [UIDVALIDITY 7] ok\r\n* OK [UIDNEXT 2] ok\r\n* FLAGS (\\Seen)\r\n${tag} OK [READ-WRITE] done\r\n`,
            );
          else if (verb === 'LIST') socket.write(`* LIST (\\HasNoChildren) "/" INBOX\r\n${tag} OK done\r\n`);
          else if (verb === 'FETCH') {
            // A gigabyte announced; 64 MB of it sent as fast as the client reads, then nothing more.
            socket.write(`* 1 FETCH (UID 1 BODY[]<0> {1073741824}\r\n`);
            const chunk = Buffer.alloc(1024 * 1024, 0x78);
            const pump = (): void => {
              while (written < 64 * 1024 * 1024 && !socket.destroyed) {
                written += chunk.length;
                if (!socket.write(chunk)) {
                  socket.once('drain', pump);
                  return;
                }
              }
            };
            pump();
          } else if (verb === 'LOGOUT') socket.end(`* BYE bye\r\n${tag} OK done\r\n`);
          else socket.write(`${tag} OK done\r\n`);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('fails the read at the announcement, in words, having taken little of it', async () => {
    const connector = new ImapConnector({ insecureHosts: ['127.0.0.1'] });
    const session = await connector.connect(
      { host: '127.0.0.1', port },
      { kind: 'password', username: 'u', password: 'p' },
    );
    try {
      const read = session.fetchMessage('INBOX', '1');
      await expect(read).rejects.toBeInstanceOf(MailProviderError);
      await expect(read).rejects.toThrow(/Could not read the message/);
    } finally {
      await session.close().catch(() => undefined);
    }
    // What the server got into the connection before it closed: its buffers, not the 64 MB it had.
    expect(written).toBeLessThan(32 * 1024 * 1024);
    expect(MAX_SERVER_LITERAL_BYTES).toBeLessThan(16 * 1024 * 1024);
  });
});
