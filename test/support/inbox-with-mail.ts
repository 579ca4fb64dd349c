import type { App } from '../../src/app.ts';
import { appendViaImap, freshPgDatabase, startDovecot } from '../rig/index.ts';
import { connectImapInbox } from './imap-inbox.ts';
import { createTestApp } from './test-app.ts';
import { agentOn } from './tool-caller.ts';

export interface InboxWithMail {
  readonly app: App;
  readonly call: Awaited<ReturnType<typeof agentOn>>['call'];
  readonly inboxId: string;
  close(): Promise<void>;
}

/**
 * A Dovecot user whose INBOX holds `mail` (raw messages, appended as another client would), and the service on the
 * given database with that inbox connected through the tools and synced once: for what some mail does to either
 * engine.
 */
export async function inboxWithMail(
  engine: string,
  user: string,
  mail: readonly Buffer[],
): Promise<InboxWithMail> {
  const password = `${user}-password`;
  const dovecot = await startDovecot({ users: { [user]: password } });
  await appendViaImap({
    host: '127.0.0.1',
    port: dovecot.port,
    user,
    password,
    messages: mail.map((raw) => ({ raw })),
  });
  const app = await createTestApp(engine === 'PostgreSQL' ? { pgUrl: await freshPgDatabase() } : {});
  const { call } = await agentOn(app);
  const inboxId = await connectImapInbox(app, call, { dovecot, user, password });
  return {
    app,
    call,
    inboxId,
    close: async () => {
      await app.close();
      await dovecot.stop();
    },
  };
}
