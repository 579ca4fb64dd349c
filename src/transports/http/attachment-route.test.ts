import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AttachmentLinks } from '../../core/reading/attachment-links.ts';
import { rateLimiterOnItsOwn } from '../../../test/support/rate-limits.ts';
import { contentDisposition, registerAttachmentRoute } from './attachment-route.ts';
import type { HttpEnv } from './http-env.ts';

// The download is pulled from the mailbox as the client reads it, and the mailbox's stream is let go exactly once,
// however the download ends.
const limiter = await rateLimiterOnItsOwn();

function route(pieces: number) {
  const state = { pulled: 0, released: 0, returned: false };
  const links = {
    open: () =>
      Promise.resolve({
        kind: 'open',
        content: {
          filename: 'big.bin',
          contentType: 'application/octet-stream',
          size: null,
          content: {
            [Symbol.asyncIterator]: () => ({
              next: () => {
                state.pulled++;
                return Promise.resolve(
                  state.pulled > pieces
                    ? { done: true as const, value: undefined }
                    : { done: false as const, value: new Uint8Array(64 * 1024) },
                );
              },
              return: () => {
                state.returned = true;
                return Promise.resolve({ done: true as const, value: undefined });
              },
            }),
          },
        },
        done: () => {
          state.released++;
          return Promise.resolve();
        },
      }),
  } as unknown as AttachmentLinks;
  const app = new Hono<HttpEnv>();
  registerAttachmentRoute(app, {
    links,
    limiter,
    trustProxy: false,
  });
  return { app, state };
}

describe('GET /attachments/:token', () => {
  it('takes pieces from the mailbox as the client reads them, not all at once', async () => {
    const { app, state } = route(400);
    const res = await app.request('/attachments/att_x');
    const reader = res.body!.getReader();
    await reader.read();
    await new Promise((r) => setTimeout(r, 50));
    // Pushed from the stream's start, all 400 pieces (25 MB) were taken and queued before the client read a second.
    expect(state.pulled).toBeLessThanOrEqual(3);
    let total = 64 * 1024;
    for (let r = await reader.read(); !r.done; r = await reader.read()) total += r.value.length;
    expect(total).toBe(400 * 64 * 1024);
    expect(state.released).toBe(1);
  });

  it('lets the mailbox go once when the client stops reading', async () => {
    const { app, state } = route(400);
    const res = await app.request('/attachments/att_x');
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    expect(state.returned).toBe(true);
    expect(state.released).toBe(1);
  });
});

describe('the name a download is saved under', () => {
  it('is the name get_message gave: no header break, no path, and no invisible or direction character', () => {
    expect(contentDisposition('invoice\u202efdp.exe')).toBe(
      `attachment; filename="invoicefdp.exe"; filename*=UTF-8''invoicefdp.exe`,
    );
    expect(contentDisposition('a\u200b\u2066b\u2069.pdf')).toBe(
      `attachment; filename="ab.pdf"; filename*=UTF-8''ab.pdf`,
    );
    expect(contentDisposition('../x\r\n"y";.pdf')).toBe(
      `attachment; filename=".._x _y__.pdf"; filename*=UTF-8''.._x%20%22y%22%3B.pdf`,
    );
    expect(contentDisposition('Résumé.pdf')).toBe(
      `attachment; filename="R_sum_.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9.pdf`,
    );
    expect(contentDisposition('\u202e')).toBe(
      `attachment; filename="attachment"; filename*=UTF-8''attachment`,
    );
  });
});
