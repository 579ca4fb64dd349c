import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * Asks the kernel for an unused TCP port on 127.0.0.1.
 *
 * The port is released before it is returned, so another process could grab it
 * before the caller binds it. Callers whose servers cannot take a pre-opened
 * socket (Dovecot, PostgreSQL) therefore retry on "address in use".
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close((err) => (err ? reject(err) : resolve(port)));
    });
  });
}
