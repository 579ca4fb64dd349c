import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import type { Config } from '../../src/config/index.ts';
import { resolveEncryptionKey } from '../../src/config/encryption-key.ts';
import { fixedClock } from '../../src/lib/clock.ts';
import { silentLogger } from '../../src/lib/logger.ts';
import { startDovecot, startSmtpSink, type Dovecot, type SmtpSink } from '../rig/index.ts';
import { connectImapInbox, imapClient } from '../support/imap-inbox.ts';
import { startService, type ServiceProcess } from '../support/spawn-service.ts';
import { tempDir } from '../support/temp-dir.ts';
import { testConfig } from '../support/test-app.ts';
import {
  agentOn,
  expectToolError,
  expectToolOk,
  httpToolCaller,
  toolCaller,
} from '../support/tool-caller.ts';

// Exactly once across a crash: the real service (a child process) is killed with SIGKILL after the SMTP server has
// the message but before it answered. The approval must never send a second email — not from the restarted
// process, not on a retry by the agent — and the stranded send ends up `unknown`, never resent.

const USER = 'erin';
const PASSWORD = 'erin-imap-password';
const STRANDED_AFTER_MS = 10 * 60_000;

describe('the process dies in the middle of a send', () => {
  let dovecot: Dovecot;
  let sink: SmtpSink;
  let dataDir: string;
  let config: Config;
  let encryptionKey: Buffer;
  let apiKey: string;
  let draftId: string;
  let approval: { pendingSendId: string; approvalCode: string; humanApprovedInChat: true };
  const running: ServiceProcess[] = [];
  const env = () => ({ DATA_DIR: dataDir, IMAP_INSECURE_HOSTS: '127.0.0.1' });
  const openApp = (clock?: ReturnType<typeof fixedClock>) =>
    createApp(config, { encryptionKey }, { log: silentLogger, ...(clock !== undefined && { clock }) });

  beforeAll(async () => {
    [dovecot, sink] = await Promise.all([
      startDovecot({ users: { [USER]: PASSWORD } }),
      // The sink keeps every message but holds its reply to DATA: the sender is left waiting, mid-send.
      startSmtpSink({ users: { [USER]: PASSWORD }, holdReplies: true }),
    ]);
    // Prepare the data directory the way the service reads it (DATA_DIR/inbox-triage.db, DATA_DIR/encryption.key):
    // owner, API key, inbox, sending on, and one approved draft.
    dataDir = tempDir('send-crash-');
    encryptionKey = resolveEncryptionKey(undefined, dataDir);
    config = testConfig({ dataDir, database: { kind: 'sqlite', path: join(dataDir, 'inbox-triage.db') } });
    const app = await openApp();
    try {
      const agent = await agentOn(app);
      apiKey = agent.key;
      const inboxId = await connectImapInbox(app, agent.call, {
        dovecot,
        user: USER,
        password: PASSWORD,
        smtpPort: sink.port,
      });
      expectToolOk(await agent.call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
      const created = expectToolOk(
        await agent.call('create_draft', {
          inboxId,
          to: 'frank@example.org',
          subject: 'Once only',
          text: 'Hi',
        }),
      );
      draftId = (created['draft'] as { id: string }).id;
      approval = {
        pendingSendId: created['pendingSendId'] as string,
        approvalCode: created['approvalCode'] as string,
        humanApprovedInChat: true,
      };
    } finally {
      await app.close();
    }
  }, 120_000);

  afterAll(async () => {
    for (const s of running) s.child.kill('SIGKILL');
    await sink.stop();
    await dovecot.stop();
  });

  const statusOf = async () => {
    const app = await openApp();
    try {
      return await app.db.kysely
        .selectFrom('pending_sends')
        .select(['status', 'claimed_at', 'finished_at', 'error'])
        .where('id', '=', approval.pendingSendId)
        .executeTakeFirstOrThrow();
    } finally {
      await app.close();
    }
  };

  it('killed after the server has the message: the restarted service does not send it again', async () => {
    const first = await startService(env());
    running.push(first);
    const inFlight = httpToolCaller(first.baseUrl, apiKey)('send_draft', approval);
    inFlight.catch(() => undefined); // its connection dies with the process
    await sink.waitFor(1);
    expect(sink.received[0]).toMatchObject({
      auth: USER,
      from: 'erin@example.test',
      to: ['frank@example.org'],
    });
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    await expect(inFlight).rejects.toThrow();
    // From here on the sink answers at once: a second submission, if any, would be accepted and counted.
    sink.release();

    const second = await startService(env());
    running.push(second);
    const agent = httpToolCaller(second.baseUrl, apiKey);
    const again = expectToolError(await agent('send_draft', approval), 'approval_used');
    expect(again['details']).toEqual({ status: 'sending' });
    expect(again['sayToHuman']).toMatch(/check your Sent folder/);
    // A wrong code is still wrong, and says nothing about the send.
    const wrong = expectToolError(
      await agent('send_draft', { ...approval, approvalCode: 'z'.repeat(approval.approvalCode.length) }),
      'approval_invalid',
    );
    expect(wrong['details']).toEqual({ attemptsLeft: 4 });
    // The SMTP server never saw a second message (nor a second attempt: a retry would have been recorded too).
    expect(sink.received).toHaveLength(1);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    // The send is recorded once, as under way; nothing was filed in Sent and the draft was not marked sent.
    expect(await statusOf()).toMatchObject({ status: 'sending', finished_at: null });
    const c = await imapClient(dovecot, USER, PASSWORD);
    try {
      expect(await c.status('Sent', { messages: true })).toMatchObject({ messages: 0 });
    } finally {
      await c.logout();
    }
  });

  it('a send still under way after 10 minutes becomes unknown, and is never resent', async () => {
    const { claimed_at } = await statusOf();
    expect(claimed_at).not.toBeNull();
    const claimedAt = Number(claimed_at);
    // Exactly at the threshold it is not yet stranded; one millisecond later it is.
    const clock = fixedClock(new Date(claimedAt + STRANDED_AFTER_MS));
    const app = await openApp(clock);
    try {
      expect(await app.services.sending.recoverStranded()).toBe(0);
      clock.advance(1);
      expect(await app.services.sending.recoverStranded()).toBe(1);
      expect(await app.services.sending.recoverStranded()).toBe(0);
      const row = await app.db.kysely
        .selectFrom('pending_sends')
        .selectAll()
        .where('id', '=', approval.pendingSendId)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        status: 'unknown',
        finished_at: clock.now().getTime(),
        error: 'the process stopped during sending',
      });

      const call = toolCaller(app, apiKey);
      const used = expectToolError(await call('send_draft', approval), 'approval_used');
      expect(used['details']).toEqual({ status: 'unknown' });
      expect(used['sayToHuman']).toMatch(/check your Sent folder/);
      // The draft is still a draft: only the person can decide to send it again, with a new approval.
      expect(
        expectToolOk(await call('show_draft', { inboxId: await inboxIdOf(call), draftId }))['draft'],
      ).toMatchObject({
        status: 'draft',
      });
    } finally {
      await app.close();
    }
    expect(sink.received).toHaveLength(1);
  });
});

async function inboxIdOf(call: ReturnType<typeof toolCaller>): Promise<string> {
  const list = expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string; isDemo?: boolean }[];
  const real = list.filter((i) => i.isDemo !== true);
  expect(real).toHaveLength(1);
  return real[0]!.id;
}
