import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARCHIVE } from '../../src/adapters/mail/gmail/gmail-folders.ts';
import type { MailSession } from '../../src/core/mail/mail-ports.ts';
import { gmailHarness } from './gmail-harness.ts';

// Gmail's batchModify takes at most 1,000 ids (the stub answers more with 400, as Gmail does).
describe('Gmail bulk changes', () => {
  let h: Awaited<ReturnType<typeof gmailHarness>>;
  let s: MailSession;
  const o = { headers: { authorization: 'Bearer test-token' } };
  beforeAll(async () => {
    h = await gmailHarness();
    s = await h.session();
    const raw = (n: number) =>
      Buffer.from(
        `From: bulk@example.com\r\nTo: pat@gmail.test\r\nSubject: Bulk ${String(n)}\r\nMessage-ID: <bulk-${String(n)}@example.com>\r\nDate: Mon, 3 Mar 2025 09:00:00 +0000\r\n\r\nHello ${String(n)}\r\n`,
      ).toString('base64url');
    for (let start = 0; start < 1005; start += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, 1005 - start) }, (_, i) =>
          h.api.users.messages.insert(
            { userId: 'me', requestBody: { raw: raw(start + i), labelIds: ['INBOX'] } },
            o,
          ),
        ),
      );
  });
  afterAll(async () => {
    await s.close();
    await h.close();
  });

  it('archives 1,005 messages in calls of at most 1,000 ids, every one of them', async () => {
    const ids: string[] = [];
    let pageToken: string | undefined;
    do {
      const page = await h.api.users.messages.list(
        { userId: 'me', labelIds: ['INBOX'], maxResults: 500, ...(pageToken !== undefined && { pageToken }) },
        o,
      );
      ids.push(...(page.data.messages ?? []).map((m) => m.id!));
      pageToken = page.data.nextPageToken ?? undefined;
    } while (pageToken !== undefined);
    expect(ids).toHaveLength(1005);
    const before = h.google.requests.length;
    const moved = await s.move('INBOX', ids, ARCHIVE);
    expect(moved.size).toBe(1005);
    const batches = h.google.requests.slice(before).filter((r) => r.path.endsWith('/batchModify'));
    expect(batches).toHaveLength(2);
    const left = await h.api.users.messages.list({ userId: 'me', labelIds: ['INBOX'], maxResults: 10 }, o);
    expect(left.data.messages ?? []).toHaveLength(0);
  });
});
