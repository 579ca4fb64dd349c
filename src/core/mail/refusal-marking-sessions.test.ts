import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../lib/clock.ts';
import type { Inbox } from '../inboxes/inbox.ts';
import { MailAuthError, MailProviderError, type MailSession } from './mail-ports.ts';
import type { MailSessionFactory } from './mail-session-factory.ts';
import { RefusalMarkingSessions } from './refusal-marking-sessions.ts';

const INBOX = { id: 'inbox_a', accountId: 'acct_a' } as unknown as Inbox;
const OPENED = new Date('2026-11-27T12:00:00Z');

/** A provider whose login, calls and watcher fail as told; opening takes a minute of the clock (reading the credential). */
function setUp(fail: { open?: Error; call?: Error; watch?: Error }) {
  const clock = fixedClock(OPENED);
  const marks: { reason: string; since: Date }[] = [];
  const session = {
    fetchRaw: () =>
      fail.call === undefined ? Promise.resolve(new Uint8Array(1)) : Promise.reject(fail.call),
    close: () => Promise.resolve(),
  } as unknown as MailSession;
  const inner: MailSessionFactory = {
    open: () => {
      clock.advance(60_000);
      return fail.open === undefined ? Promise.resolve(session) : Promise.reject(fail.open);
    },
    definesLabels: () => false,
    watchInbox: () =>
      fail.watch === undefined ? Promise.resolve(() => Promise.resolve()) : Promise.reject(fail.watch),
  };
  const sessions = new RefusalMarkingSessions(inner, {
    clock,
    mark: (inbox, reason, since) => {
      expect(inbox).toBe(INBOX);
      marks.push({ reason, since });
      return Promise.resolve();
    },
  });
  return { sessions, marks };
}

describe('RefusalMarkingSessions', () => {
  it('marks the inbox when the login is refused, as of the moment before the credential was read', async () => {
    const { sessions, marks } = setUp({ open: new MailAuthError('AUTHENTICATIONFAILED') });
    await expect(sessions.open(INBOX)).rejects.toBeInstanceOf(MailAuthError);
    expect(marks).toEqual([{ reason: 'AUTHENTICATIONFAILED', since: OPENED }]);
  });

  it('marks it when a call of an open session is refused (an expired token), as of the session’s opening', async () => {
    const { sessions, marks } = setUp({ call: new MailAuthError('token revoked') });
    const s = await sessions.open(INBOX);
    await expect(s.fetchRaw('INBOX', '1')).rejects.toBeInstanceOf(MailAuthError);
    expect(marks).toEqual([{ reason: 'token revoked', since: OPENED }]);
  });

  it('marks it when a watcher’s login is refused', async () => {
    const { sessions, marks } = setUp({ watch: new MailAuthError('AUTHENTICATIONFAILED') });
    await expect(sessions.watchInbox(INBOX, () => undefined)).rejects.toBeInstanceOf(MailAuthError);
    expect(marks).toHaveLength(1);
  });

  it('leaves it alone for any other failure, and hands every answer through', async () => {
    const down = setUp({ open: new MailProviderError('connection refused') });
    await expect(down.sessions.open(INBOX)).rejects.toBeInstanceOf(MailProviderError);
    const flaky = setUp({ call: new MailProviderError('timed out') });
    await expect((await flaky.sessions.open(INBOX)).fetchRaw('INBOX', '1')).rejects.toBeInstanceOf(
      MailProviderError,
    );
    const fine = setUp({});
    expect(await (await fine.sessions.open(INBOX)).fetchRaw('INBOX', '1')).toEqual(new Uint8Array(1));
    expect([...down.marks, ...flaky.marks, ...fine.marks]).toEqual([]);
  });
});
