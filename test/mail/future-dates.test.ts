import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboxWithMail, type InboxWithMail } from '../support/inbox-with-mail.ts';
import { expectToolOk } from '../support/tool-caller.ts';

// Decision 0062: a sender dating a message years ahead does not keep it first in every newest-first listing.
const HOUR = 3600_000;
const dated = (subject: string, date: Date) =>
  Buffer.from(
    [
      'From: sender@example.test',
      'To: owner@example.test',
      `Subject: ${subject}`,
      `Message-ID: <${subject.replaceAll(' ', '-')}@rig.test>`,
      `Date: ${date.toUTCString()}`,
      '',
      'Hello.',
      '',
    ].join('\r\n'),
  );

describe('a Date header far ahead of the message’s arrival, at Dovecot', () => {
  let inbox: InboxWithMail;
  const appended = Date.now();
  beforeAll(async () => {
    inbox = await inboxWithMail('SQLite', 'future', [
      dated('From the future', new Date('2099-01-01T00:00:00Z')),
      dated('Two hours ahead', new Date(appended + 2 * HOUR)),
      dated('Last week', new Date(appended - 7 * 24 * HOUR)),
    ]);
  }, 60_000);
  afterAll(() => inbox.close());

  it('is listed at its arrival; a header within a day ahead, or in the past, is kept', async () => {
    const listed = expectToolOk(await inbox.call('list_messages', { inboxId: inbox.inboxId, limit: 10 }));
    const dates = new Map(
      (listed['messages'] as { subject: string; date: string }[]).map((m) => [m.subject, Date.parse(m.date)]),
    );
    // The arrival is the server's INTERNALDATE of the append, to the second.
    expect(Math.abs(dates.get('From the future')! - appended)).toBeLessThan(60_000);
    expect(dates.get('Two hours ahead')).toBe(Math.floor((appended + 2 * HOUR) / 1000) * 1000);
    expect(dates.get('Last week')).toBe(Math.floor((appended - 7 * 24 * HOUR) / 1000) * 1000);
    expect((listed['messages'] as { subject: string }[]).map((m) => m.subject)).toEqual([
      'Two hours ahead',
      'From the future',
      'Last week',
    ]);
  });
});
