import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { buildMessage, seedMaildir, startDovecot, type Dovecot } from '../rig/index.ts';
import { connectImapInbox, mailboxState } from '../support/imap-inbox.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolOk, type toolCaller } from '../support/tool-caller.ts';

// A sender-wide action covers at most 500 messages per call; past that it says `more: true`, and calling again
// continues. Each call's undo handle reverses exactly what that call moved.
describe('act_on_messages { sender } past its 500-message limit', () => {
  let dovecot: Dovecot;
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  let inboxId: string;
  const USER = 'carol';
  const PASSWORD = 'carol-imap-password';
  const BULK = 'digest@lists.test';
  const FRIEND = 'friend@example.org';
  const COUNT = 503;

  beforeAll(async () => {
    dovecot = await startDovecot({ users: { [USER]: PASSWORD } });
    const start = Date.UTC(2026, 8, 1);
    const senders: string[] = [];
    for (let i = 0; i < COUNT; i++) {
      if (i % 50 === 7) senders.push(FRIEND);
      senders.push(BULK);
    }
    await seedMaildir({
      maildir: dovecot.maildirOf(USER),
      messages: senders.map((from, i) => ({
        raw: buildMessage({
          from: { address: from, name: '' },
          to: [{ address: `${USER}@example.test` }],
          subject: `Issue ${String(i)}`,
          date: new Date(start + i * 60_000),
          messageId: `<${from === BULK ? 'bulk' : 'friend'}${String(i)}@rig.test>`,
          text: `Body ${String(i)}`,
        }),
        internalDate: new Date(start + i * 60_000),
      })),
    });
    app = await createTestApp();
    const agent = await agentOn(app);
    call = agent.call;
    inboxId = await connectImapInbox(app, call, { dovecot, user: USER, password: PASSWORD });
  }, 120_000);

  afterAll(async () => {
    await app.close();
    await dovecot.stop();
  });

  const folderCounts = async () => {
    const counts: Record<string, number> = {};
    for (const row of await mailboxState(dovecot, USER, PASSWORD)) {
      const folder = row.split(' | ')[0] ?? '';
      const bulk = row.includes('<bulk') ? 'bulk' : 'friend';
      counts[`${folder}:${bulk}`] = (counts[`${folder}:${bulk}`] ?? 0) + 1;
    }
    return counts;
  };

  it('moves 500, says more remain, moves the rest on the next call; each undo reverses its own call', async () => {
    const before = await folderCounts();
    const inboxBefore = before['INBOX:bulk'] ?? 0;
    expect(inboxBefore).toBe(COUNT);
    const friends = before['INBOX:friend'];
    expect(friends).toBeGreaterThan(0);

    const first = expectToolOk(
      await call('act_on_messages', { action: 'archive', sender: { inboxId, email: BULK } }),
    );
    expect((first['changed'] as unknown[]).length).toBe(500);
    expect(first['more']).toBe(true);
    expect(first['sayToHuman']).toMatch(/more messages from this sender/);
    expect(JSON.stringify(first['agentOnly'])).toMatch(/call act_on_messages again with the same sender/);

    const second = expectToolOk(
      await call('act_on_messages', { action: 'archive', sender: { inboxId, email: BULK } }),
    );
    expect((second['changed'] as unknown[]).length).toBe(COUNT - 500);
    expect(second['more']).toBeUndefined();

    const third = expectToolOk(
      await call('act_on_messages', { action: 'archive', sender: { inboxId, email: BULK } }),
    );
    expect(third['changed']).toEqual([]);
    expect(third['undoId']).toBeNull();

    const after = await folderCounts();
    expect(after['Archive:bulk']).toBe(COUNT);
    expect(after['INBOX:bulk']).toBeUndefined();
    expect(after['INBOX:friend']).toBe(friends); // the other sender's messages stay

    expectToolOk(await call('undo_action', { undoId: second['undoId'] }));
    expect((await folderCounts())['Archive:bulk']).toBe(500);
    const undone = expectToolOk(await call('undo_action', { undoId: first['undoId'] }));
    expect(undone['notRestored']).toEqual([]);
    expect(await folderCounts()).toEqual(before);
  });
});
