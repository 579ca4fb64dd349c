import { EventEmitter } from 'node:events';
import type { ImapFlow } from 'imapflow';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MailAuthError } from '../../../core/mail/mail-ports.ts';
import { silentLogger } from '../../../lib/logger.ts';
import { IdleWatcher, type WatchConnection } from './idle-watcher.ts';

/** A logged-in connection as the watcher uses one: it opens the folder and idles until the server drops it. */
function connection(): WatchConnection & { drop: () => void } {
  const client = Object.assign(new EventEmitter(), {
    usable: true,
    capabilities: new Set(['IDLE']),
    mailboxOpen: () => Promise.resolve(),
    idle: () => new Promise<never>(() => undefined),
    logout: () => Promise.resolve(),
    close: () => undefined,
  });
  return {
    client: client as unknown as ImapFlow,
    release: () => undefined,
    drop: () => {
      client.usable = false;
      client.emit('close');
    },
  };
}

// Decision 0095: a login the server refuses when the watcher reconnects used to end the watch for good — a stored
// password gone bad then waited for the periodic sync to be noticed, and a server's passing refusal of a good one left
// the inbox unwatched for as long as the process ran.
describe('a watcher whose login is refused when it reconnects', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('asks for a sync at once, and logs in again only after a long pause', async () => {
    const first = connection();
    const later = connection();
    let calls = 0;
    const open = vi.fn(() => {
      calls++;
      if (calls === 1) return Promise.resolve(first);
      if (calls === 2) return Promise.reject(new MailAuthError('AUTHENTICATIONFAILED'));
      return Promise.resolve(later);
    });
    const onChange = vi.fn();
    const watcher = new IdleWatcher({ path: 'INBOX', open, onChange, log: silentLogger });
    await watcher.start();

    first.drop();
    await vi.advanceTimersByTimeAsync(1_000); // the first reconnect comes within a second
    expect(open).toHaveBeenCalledTimes(2);
    expect(onChange).toHaveBeenCalledTimes(1); // the refusal asks for a sync, which tells a bad password from a blip

    await vi.advanceTimersByTimeAsync(14 * 60_000);
    expect(open).toHaveBeenCalledTimes(2); // no login meanwhile: a refused password is not tried again and again
    await vi.advanceTimersByTimeAsync(60_000);
    expect(open).toHaveBeenCalledTimes(3);
    expect(onChange).toHaveBeenCalledTimes(2); // watching again, after news it may have missed

    await watcher.stop();
  });

  it('stops trying once stopped (the inbox was marked for reconnecting)', async () => {
    const first = connection();
    const open = vi
      .fn<() => Promise<WatchConnection>>()
      .mockResolvedValueOnce(first)
      .mockRejectedValue(new MailAuthError('AUTHENTICATIONFAILED'));
    const watcher = new IdleWatcher({ path: 'INBOX', open, onChange: () => undefined, log: silentLogger });
    await watcher.start();
    first.drop();
    await vi.advanceTimersByTimeAsync(1_000);
    await watcher.stop();
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    expect(open).toHaveBeenCalledTimes(2);
  });
});
