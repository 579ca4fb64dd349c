import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { testTls } from '../rig/https-sink.ts';
import { appendViaImap, buildMessage, startDovecot, type Dovecot } from '../rig/index.ts';
import { startService, type ServiceProcess } from '../support/spawn-service.ts';
import { createTestApp, TEST_KEY } from '../support/test-app.ts';
import { tempDir } from '../support/temp-dir.ts';
import { agentOn, expectToolOk, httpToolCaller } from '../support/tool-caller.ts';
import { WebClient } from '../support/web-client.ts';

// A mail server of the person's own — a NAS, a Raspberry Pi, a LAN box — whose certificate it made itself, or which
// a private authority signed (decision 0081). The service trusts only what Node trusts; the password page said "The
// mail server could not be reached. Check the server name and port", which were right. It now says the certificate
// could not be verified, why, and what the operator can do: NODE_EXTRA_CA_CERTS, which the service honours as Node
// does — shown here with the real process.
const PASSWORD = 'own-server-pass';

describe('an IMAP server with a certificate of its own', () => {
  const tls = testTls(['localhost']);
  const dataDir = tempDir('own-cert-');
  const caFile = join(dataDir, 'my-ca.pem');
  let dovecot: Dovecot;
  let key: string;
  let svc: ServiceProcess | undefined;

  const env = (extra: Record<string, string> = {}) => ({
    DATA_DIR: dataDir,
    ENCRYPTION_KEY: TEST_KEY.toString('base64'),
    IMAP_INSECURE_HOSTS: 'localhost', // a LAN server: its private address allowed; STARTTLS used, as offered
    ...extra,
  });

  /** The password page, through the running service, as the person's browser fills it. */
  async function typePassword(baseUrl: string, url: string): Promise<{ status: number; html: string }> {
    const web = new WebClient({
      fetch: (req: Request) => fetch(req),
      config: { baseUrl },
    } as unknown as App);
    const path = new URL(url).pathname + new URL(url).search;
    await web.get(path);
    const token = new URL(url).searchParams.get('token') ?? '';
    const res = await web.post('/connect/imap', { token, username: 'ann', password: PASSWORD });
    return { status: res.status, html: web.lastHtml };
  }

  beforeAll(async () => {
    writeFileSync(caFile, tls.ca);
    dovecot = await startDovecot({ users: { ann: PASSWORD }, tls: { cert: tls.cert, key: tls.key } });
    const setup = await createTestApp({
      config: { dataDir, database: { kind: 'sqlite', path: join(dataDir, 'inbox-triage.db') } },
    });
    key = (await agentOn(setup)).key;
    await setup.close();
  }, 60_000);

  afterAll(async () => {
    svc?.child.kill('SIGKILL');
    await dovecot.stop();
  });

  it('says why it cannot connect, and connects once the operator trusts the certificate', async () => {
    svc = await startService(env(), 30_000);
    const call = httpToolCaller(svc.baseUrl, key);
    const added = expectToolOk(
      await call('add_inbox', {
        label: 'My NAS',
        provider: 'imap',
        email: 'ann@example.test',
        imapHost: 'localhost',
        imapPort: dovecot.port,
        imapUser: 'ann',
      }),
    );
    const inboxId = (added['inbox'] as { id: string }).id;
    const link = () =>
      call('start_imap_secret_capture', { inboxId }).then((r) => expectToolOk(r)['url'] as string);

    const refused = await typePassword(svc.baseUrl, await link());
    expect(refused.status).toBe(400);
    expect(refused.html).toContain(
      'The TLS certificate of localhost could not be verified: it was issued by an authority this machine does not know.',
    );
    expect(refused.html).toContain('NODE_EXTRA_CA_CERTS');
    svc.child.kill('SIGKILL');
    await svc.exited;

    // The operator adds the server's authority, as Node reads it, and starts the service again.
    svc = await startService(env({ NODE_EXTRA_CA_CERTS: caFile }), 30_000);
    const again = httpToolCaller(svc.baseUrl, key);
    const url = expectToolOk(await again('start_imap_secret_capture', { inboxId }))['url'] as string;
    const connected = await typePassword(svc.baseUrl, url);
    expect(connected.html).toContain('ann@example.test is connected');
    await appendViaImap({
      host: '127.0.0.1',
      port: dovecot.port,
      user: 'ann',
      password: PASSWORD,
      messages: [
        {
          raw: buildMessage({
            from: { address: 'x@example.test', name: 'X' },
            to: [{ address: 'ann@example.test' }],
            subject: 'Over TLS',
            date: new Date(),
            messageId: '<tls@rig.test>',
            text: 'Hi',
          }),
        },
      ],
    });
    expectToolOk(await again('sync_inbox', { inboxId }));
    const listed = expectToolOk(await again('list_messages', { inboxId }))['messages'] as {
      subject: string;
    }[];
    expect(listed.map((m) => m.subject)).toContain('Over TLS');
  }, 120_000);
});
