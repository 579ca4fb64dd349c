import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ImapConnector } from '../../src/adapters/mail/imap/imap-connector.ts';
import type { MailCredential } from '../../src/core/mail/mail-types.ts';
import { startDovecot, type Dovecot } from '../rig/index.ts';
import { startWireTap, type WireTap } from '../rig/wire-tap.ts';

/**
 * A server offering COMPRESS=DEFLATE (Dovecot with imap_zlib): the IDLE connection that watches an inbox does not
 * turn it on (zlib state ~170 KB a connection, for a line that is almost always silent), command sessions do.
 * What each connection sent is read on the wire (test/rig/wire-tap.ts).
 */
describe('COMPRESS on IMAP connections', () => {
  let dovecot: Dovecot;
  let tap: WireTap;
  const credential: MailCredential = { kind: 'password', username: 'zed', password: 'zed-password' };

  beforeAll(async () => {
    dovecot = await startDovecot({ users: { zed: 'zed-password' }, compress: true });
    tap = await startWireTap(dovecot);
  });

  afterAll(async () => {
    await tap.close();
    await dovecot.stop();
  });

  it('the server offers it; a command session turns it on, the IDLE watch does not', async () => {
    const connector = new ImapConnector({ insecureHosts: ['127.0.0.1'], pooledIdleMs: 0 });
    const endpoint = { host: '127.0.0.1', port: tap.port };
    const sent = tap.sent;
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
