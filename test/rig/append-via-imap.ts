import { ImapFlow } from 'imapflow';
import type { SeedMessage } from './seed-message.ts';

interface AppendOptions {
  host: string;
  port: number;
  user: string;
  password: string;
  folder?: string;
  messages: readonly SeedMessage[];
}

/**
 * APPENDs messages one by one (sequential is faster than pipelining here) and returns their UIDs, as far as the
 * server says them (UIDPLUS; a rig server may be without, see withoutUidplus).
 */
export async function appendViaImap(
  opts: AppendOptions,
): Promise<Array<{ uid: number | undefined; uidValidity: bigint | undefined }>> {
  const client = new ImapFlow({
    host: opts.host,
    port: opts.port,
    secure: false,
    doSTARTTLS: false,
    logger: false,
    auth: { user: opts.user, pass: opts.password },
  });
  // Without a listener a dropped connection's 'error' event would end the process; the awaited calls reject anyway.
  client.on('error', () => undefined);
  await client.connect();
  try {
    const results: Array<{ uid: number | undefined; uidValidity: bigint | undefined }> = [];
    for (const msg of opts.messages) {
      const res = await client.append(
        opts.folder ?? 'INBOX',
        msg.raw,
        [...(msg.flags ?? [])],
        msg.internalDate,
      );
      if (!res) throw new Error(`APPEND to ${opts.folder ?? 'INBOX'} failed`);
      results.push({ uid: res.uid, uidValidity: res.uidValidity });
    }
    return results;
  } finally {
    // A failed LOGOUT must not hide the APPEND error that got us here.
    await client.logout().catch(() => client.close());
  }
}
