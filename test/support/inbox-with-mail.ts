import type { App } from '../../src/app.ts';
import { freshPgDatabase, startDovecot, type Dovecot } from '../rig/index.ts';
import { connectImapInbox, deliverTo } from './imap-inbox.ts';
import { createTestApp } from './test-app.ts';
import { agentOn } from './tool-caller.ts';

export interface InboxWithMail {
  readonly app: App;
  readonly dovecot: Dovecot;
  readonly call: Awaited<ReturnType<typeof agentOn>>['call'];
  readonly inboxId: string;
  /** Appends raw messages to INBOX as another client would. */
  deliver(...mail: Buffer[]): Promise<void>;
  close(): Promise<void>;
}

export interface InboxWithMailOptions {
  /** The server's capabilities and layout, when not Dovecot's own (see startDovecot). */
  readonly server?: Omit<NonNullable<Parameters<typeof startDovecot>[0]>, 'users'>;
  /** Set up at the server before the inbox is connected (folders made, say), through the user's own login. */
  readonly before?: (dovecot: Dovecot, user: string, password: string) => Promise<void>;
  /** The app's own overrides (an IMAP connector with other timings, say). */
  readonly app?: Omit<NonNullable<Parameters<typeof createTestApp>[0]>, 'pgUrl'>;
}

/**
 * A Dovecot user whose INBOX holds `mail` (raw messages, appended as another client would), and the service on the
 * given database with that inbox connected through the tools and synced once: for what some mail, or some server,
 * does to the service.
 */
export async function inboxWithMail(
  engine: string,
  user: string,
  mail: readonly Buffer[],
  opts: InboxWithMailOptions = {},
): Promise<InboxWithMail> {
  const password = `${user}-password`;
  const dovecot = await startDovecot({ users: { [user]: password }, ...opts.server });
  const deliver = deliverTo(dovecot, user, password);
  if (mail.length > 0) await deliver(...mail);
  await opts.before?.(dovecot, user, password);
  const app = await createTestApp({
    ...opts.app,
    ...(engine === 'PostgreSQL' && { pgUrl: await freshPgDatabase() }),
  });
  const { call } = await agentOn(app);
  const inboxId = await connectImapInbox(app, call, { dovecot, user, password });
  return {
    app,
    dovecot,
    call,
    inboxId,
    deliver,
    close: async () => {
      await app.close();
      await dovecot.stop();
    },
  };
}
