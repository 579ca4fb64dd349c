import type { Hono } from 'hono';
import { MailAuthError, MailProviderError } from '../../core/mail/mail-ports.ts';
import { cleanText } from '../../core/messages/untrusted-content.ts';
import type { AttachmentLinks, OpenedLink } from '../../core/reading/attachment-links.ts';
import type { RateLimiter, RateRule } from '../../core/rate-limits/rate-limiter.ts';
import { clientNetwork } from '../../lib/ip-address.ts';
import { clientIp } from './client-ip.ts';
import type { HttpEnv } from './http-env.ts';
import { jsonError, tooManyRequests } from './json-error.ts';

/** Links that open nothing, per client network and minute: as many as wrong keys (`mcp-auth-fail`). */
const LINK_FAILURES: RateRule = { name: 'link-fail', points: 30, windowSeconds: 60 };

// Types a browser may render inline are still sent as attachments; anything else becomes opaque bytes.
const SAFE_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/i;

/**
 * `GET /attachments/:token` — a short-lived capability link from `get_attachment`, streaming the part from the
 * provider. Headers are built from sender-controlled names, so they are sanitised: no CR/LF or quotes can reach
 * a header, the name goes in RFC 6266 `filename*`, and the content is never sniffed or rendered by us.
 */
export function registerAttachmentRoute(
  app: Hono<HttpEnv>,
  deps: { links: AttachmentLinks; limiter: RateLimiter; trustProxy: boolean },
): void {
  app.get('/attachments/:token', async (c) => {
    let opened: OpenedLink;
    try {
      opened = await deps.links.open(c.req.param('token'));
    } catch (e) {
      // The mailbox is unreachable or refused us: say so, with a status a client can retry on.
      if (e instanceof MailProviderError || e instanceof MailAuthError)
        return jsonError(
          502,
          'provider_error',
          'The mailbox could not be reached to fetch this attachment. Try the link again in a moment.',
        );
      throw e;
    }
    if (opened.kind === 'invalid') {
      // Counted per client network, like a wrong key (decision 0125): trying links from one place ends in 429s.
      const spent = await deps.limiter.consume(LINK_FAILURES, clientNetwork(clientIp(c, deps.trustProxy)));
      if (!spent.allowed) return tooManyRequests(spent.retryAfterSeconds);
      return jsonError(
        410,
        'link_expired',
        'This download link is invalid or has expired. Ask for a new one with get_attachment.',
      );
    }
    // The credential the link was issued to has spent its requests for the minute.
    if (opened.kind === 'limited') return tooManyRequests(opened.retryAfterSeconds);
    const { content, done } = opened;
    const type = SAFE_TYPE.test(content.contentType)
      ? content.contentType.toLowerCase()
      : 'application/octet-stream';
    // Pulled, a piece at a time as the client takes them (decision 0100): pushed from the stream's start, every piece
    // was taken from the mailbox and queued at once, however slowly the client read.
    const pieces = content.content[Symbol.asyncIterator]();
    let finished = false;
    const finish = async (): Promise<void> => {
      if (finished) return;
      finished = true;
      await done();
    };
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          try {
            const next = await pieces.next();
            if (next.done === true) {
              controller.close();
              await finish();
            } else controller.enqueue(next.value);
          } catch (e) {
            controller.error(e);
            await finish();
          }
        },
        async cancel() {
          try {
            await pieces.return?.();
          } finally {
            await finish();
          }
        },
      },
      { highWaterMark: 1 },
    );
    return new Response(body, {
      headers: {
        'content-type': type,
        'content-disposition': contentDisposition(content.filename),
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
        'cache-control': 'private, no-store',
        ...(content.size !== null && { 'content-length': String(content.size) }),
      },
    });
  });
}

/**
 * RFC 6266 + RFC 8187: an ASCII fallback and the UTF-8 name, with nothing that could break the header, and the name
 * `get_message` gave: no invisible or bidirectional character, so `invoice\u202efdp.exe` (shown by a save dialog as
 * "invoiceexe.pdf") is saved as `invoicefdp.exe` (decision 0106).
 */
export function contentDisposition(filename: string): string {
  const clean =
    cleanText(filename)
      .replace(/[\u0000-\u001f\u007f]/g, '')
      .replace(/[/\\]/g, '_')
      .trim()
      .slice(0, 200) || 'attachment';
  const ascii = clean.replace(/[^\x20-\x7e]/g, '_').replace(/["%;]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(clean)}`;
}
