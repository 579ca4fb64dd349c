import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ImapConnector } from '../../src/adapters/mail/imap/imap-connector.ts';
import type { MailCredential } from '../../src/core/mail/mail-types.ts';
import { startDovecot, type Dovecot } from '../rig/index.ts';

/**
 * A server offering COMPRESS=DEFLATE (Dovecot with imap_zlib): the IDLE connection that watches an inbox does not
 * turn it on (zlib state ~170 KB a connection, for a line that is almost always silent), command sessions do.
 * What each connection sent is read on the wire, through a tap between the connector and Dovecot.
 */
describe('COMPRESS on IMAP connections', () => {
  let dovecot: Dovecot;
  let tap: Server;
  let tapPort = 0;
  /** What each connection through the tap sent to the server, in order of connection. */
  const sent: string[] = [];
  const credential: MailCredential = { kind: 'password', username: 'zed', password: 'zed-password' };

  beforeAll(async () => {
    dovecot = await startDovecot({ users: { zed: 'zed-password' }, compress: true });
    const sockets: Socket[] = [];
    tap = createServer((client) => {
      const i = sent.push('') - 1;
      const record = (d: Buffer) => {
        sent[i] = `${sent[i] ?? ''}${d.toString('latin1')}`;
      };
      const server = connect(dovecot.port, dovecot.host);
      sockets.push(client, server);
      client.on('data', (d: Buffer) => {
        // Only the readable part matters (the command names before any compression starts).
        record(d);
        server.write(d);
      });
      server.on('data', (d: Buffer) => client.write(d));
      for (const [a, b] of [
        [client, server],
        [server, client],
      ] as const) {
        a.on('error', () => b.destroy());
        a.on('close', () => b.destroy());
      }
    });
    await new Promise<void>((r) => tap.listen(0, '127.0.0.1', r));
    tapPort = (tap.address() as { port: number }).port;
  });

  afterAll(async () => {
    await new Promise((r) => tap.close(r));
    await dovecot.stop();
  });

  it('the server offers it; a command session turns it on, the IDLE watch does not', async () => {
    const connector = new ImapConnector({ insecureHosts: ['127.0.0.1'], pooledIdleMs: 0 });
    const endpoint = { host: '127.0.0.1', port: tapPort };

    const session = await connector.connect(endpoint, credential);
    expect((await session.listFolders()).length).toBeGreaterThan(0);
    await session.close();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^\w+ COMPRESS DEFLATE\r$/m);

    let changes = 0;
    const stop = await connector.watch(endpoint, credential, 'INBOX', () => changes++);
    try {
      expect(sent).toHaveLength(2);
      expect(sent[1]).toMatch(/^\w+ (EXAMINE|SELECT) "?INBOX"?/m); // it did log in and open the folder
      await vi.waitFor(() => {
        expect(sent[1]).toMatch(/^\w+ IDLE\r$/m);
      });
      expect(sent[1]).not.toMatch(/COMPRESS/);
    } finally {
      await stop();
    }
    expect(changes).toBe(0);
  });
});
