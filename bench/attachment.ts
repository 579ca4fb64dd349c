import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createApp } from '../src/app.ts';
import { readConfiguration } from '../src/config/index.ts';
import { silentLogger } from '../src/lib/logger.ts';
import { seedMaildir, startDovecot } from '../test/rig/index.ts';
import { startService } from '../test/support/spawn-service.ts';
import { tempDir } from '../test/support/temp-dir.ts';
import { httpToolCaller } from '../test/support/tool-caller.ts';
import { createKeyViaPage, setUpOwner } from '../test/support/web-client.ts';
import { connectedInbox, PASSWORD } from './sync.ts';

export interface AttachmentStream {
  readonly bytes: number;
  readonly intact: boolean;
  /** Growth of the service process's peak RSS (VmHWM) while `get_message` read the message. */
  readonly getMessagePeakGrowthMb: number;
  /** … and while the download link streamed the attachment. */
  readonly downloadPeakGrowthMb: number;
  readonly downloadMs: number;
  /** The client's pause after each piece it read: a client slower than the mailbox. */
  readonly pauseMsPerPiece: number;
}

const peakMb = (pid: number) =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/**
 * A message with one attachment of `mb` MB at Dovecot, read through `get_message` and downloaded (issue 21, P3), by a
 * client that pauses `pauseMsPerPiece` after each piece: were the download not paced by its reader, a slow client
 * would leave the file in the service's memory.
 */
export async function attachmentStream(mb: number, pauseMsPerPiece = 0): Promise<AttachmentStream> {
  const content = randomBytes(mb * 1024 * 1024);
  const raw = Buffer.concat([
    Buffer.from(
      'From: Big Sender <big@example.test>\r\nTo: reader@example.test\r\nSubject: A large file\r\n' +
        'Message-ID: <large-file@example.test>\r\nDate: Mon, 23 Nov 2026 09:00:00 +0000\r\nMIME-Version: 1.0\r\n' +
        'Content-Type: multipart/mixed; boundary="b1"\r\n\r\n--b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n' +
        'The file is attached.\r\n--b1\r\nContent-Type: application/octet-stream; name="large.bin"\r\n' +
        'Content-Disposition: attachment; filename="large.bin"\r\nContent-Transfer-Encoding: base64\r\n\r\n',
    ),
    Buffer.from(content.toString('base64').replace(/.{76}/g, '$&\r\n')),
    Buffer.from('\r\n--b1--\r\n'),
  ]);
  const dovecot = await startDovecot({ users: { large: PASSWORD } });
  try {
    await seedMaildir({ maildir: dovecot.maildirOf('large'), messages: [{ raw }] });
    const env = { DATA_DIR: tempDir('bench-attachment-'), IMAP_INSECURE_HOSTS: '127.0.0.1' };
    const { config, secrets } = readConfiguration(env, process.cwd());
    const setup = await createApp(config, secrets, { log: silentLogger });
    const web = await setUpOwner(setup);
    await setup.services.accounts.setPlan('owner@example.test', 'pro');
    const key = await createKeyViaPage(web);
    const inboxId = (await connectedInbox(setup, dovecot, 'large', 'owner@example.test')).id;
    await setup.close();
    const svc = await startService(env, 60_000);
    try {
      const pid = svc.child.pid!;
      const call = httpToolCaller(svc.baseUrl, key);
      await call('sync_inbox', { inboxId });
      const [first] = (await call('list_messages', { inboxId, limit: 1 })).body['messages'] as {
        messageId: string;
      }[];
      const beforeGet = peakMb(pid);
      const message = (await call('get_message', { inboxId, messageId: first!.messageId })).body;
      const getMessagePeakGrowthMb = peakMb(pid) - beforeGet;
      const [part] = message['attachments'] as { partId: string; size: number }[];
      const link = (
        await call('get_attachment', { inboxId, messageId: first!.messageId, partId: part!.partId })
      ).body;
      const beforeDownload = peakMb(pid);
      const t = performance.now();
      const res = await fetch(String(link['url']));
      const hash = createHash('sha256');
      let bytes = 0;
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        hash.update(chunk);
        bytes += chunk.length;
        if (pauseMsPerPiece > 0) await new Promise((r) => setTimeout(r, pauseMsPerPiece));
      }
      const downloadMs = performance.now() - t;
      return {
        bytes,
        intact: hash.digest('hex') === createHash('sha256').update(content).digest('hex'),
        getMessagePeakGrowthMb,
        downloadPeakGrowthMb: peakMb(pid) - beforeDownload,
        downloadMs,
        pauseMsPerPiece,
      };
    } finally {
      svc.child.kill('SIGTERM');
      await svc.exited;
    }
  } finally {
    await dovecot.stop();
  }
}
