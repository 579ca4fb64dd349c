import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEmulator } from 'emulate';
import PostalMime from 'postal-mime';
import { freePort } from './free-port.ts';

/**
 * Google for tests: the `emulate` package (0.12.2, pinned — npm's `latest` of that name is another package) for
 * Gmail and Google sign-in, behind a small stub of our own for what it lacks (reference/wave2-research.md §1.2):
 * `users.getProfile`, a 404 for a history id that is too old, every header of a message in `metadata`/`full`
 * (the emulator exposes only From/To/Subject/Date/Message-ID, so List-Unsubscribe and Authentication-Results
 * would never arrive), Gmail's 1,000-id limit on batchModify, and injected faults (429 with Retry-After, 5xx).
 * Everything else is forwarded unchanged; both bind 127.0.0.1.
 */
export interface GoogleEmulator {
  /** The stub's URL: point GMAIL_API_URL and GOOGLE_OAUTH_ISSUER here. */
  readonly url: string;
  /** The emulator itself (the sign-in page lives here too, as its discovery says). */
  readonly emulatorUrl: string;
  readonly user: string;
  /** history ids below this answer 404, as Gmail does for history it no longer keeps. */
  expireHistoryBefore(historyId: string): void;
  /** The next `count` requests whose path matches answer this status (with Retry-After seconds when given). */
  failNext(
    count: number,
    fault: { status: number; retryAfter?: number; reason?: string; path?: RegExp },
  ): void;
  /** Drops the faults not yet served. */
  clearFaults(): void;
  /** Requests seen by the stub, method, path (with query) and when, oldest first. */
  readonly requests: { method: string; path: string; at: number }[];
  /** Refresh tokens Google issued through the stub (a test revokes one as the person would at Google). */
  refreshTokens(): string[];
  /** Access tokens Google issued through the stub. */
  accessTokens(): string[];
  close(): Promise<void>;
}

export interface GoogleEmulatorOptions {
  readonly user?: string;
  /** An OAuth client the emulator knows: our client id, secret and callback. */
  readonly client?: { id: string; secret: string; redirectUri: string };
}

export async function startGoogleEmulator(opts: GoogleEmulatorOptions = {}): Promise<GoogleEmulator> {
  const user = opts.user ?? 'person@gmail.test';
  const emuPort = await freePort();
  const emu = await createEmulator({
    service: 'google',
    port: emuPort,
    hostname: '127.0.0.1',
    baseUrl: `http://127.0.0.1:${String(emuPort)}`,
    seed: {
      google: {
        users: [{ email: user, name: 'Pat Person' }],
        ...(opts.client !== undefined && {
          oauth_clients: [
            {
              client_id: opts.client.id,
              client_secret: opts.client.secret,
              redirect_uris: [opts.client.redirectUri],
              name: 'Inbox Triage (test)',
            },
          ],
        }),
      },
    },
  });
  const emulatorUrl = `http://127.0.0.1:${String(emuPort)}`;
  let staleBefore: bigint | undefined;
  const faults: { count: number; status: number; retryAfter?: number; reason?: string; path?: RegExp }[] = [];
  const requests: { method: string; path: string; at: number }[] = [];
  // Google revokes the access tokens of a revoked refresh token too; the emulator forgets only the one it is given.
  const issuedFrom = new Map<string, string>();
  const refreshTokens: string[] = [];
  const revoked = new Set<string>();

  // The emulator meters each bearer at 5,000 requests an hour and then answers 403 in GitHub's words: not Gmail's
  // quota (per user per second, answered 429 or 403 `rateLimitExceeded`, which `failNext` injects). Calls to the mail
  // API go on under a bearer of the stub's that changes every 4,000 requests; the emulator maps any bearer it did
  // not issue to its one user, and revoked tokens are refused here before forwarding.
  let gmailCalls = 0;
  const forward = async (req: IncomingMessage, path: string, body?: Buffer): Promise<Response> =>
    fetch(emulatorUrl + path, {
      method: req.method ?? 'GET',
      headers: Object.fromEntries(
        Object.entries(req.headers)
          .filter(([k, v]) => typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k))
          .map(([k, v]) =>
            k === 'authorization' && path.startsWith('/gmail/')
              ? [k, `Bearer stub-quota-${String(Math.floor(gmailCalls++ / 4000))}`]
              : [k, v as string],
          ),
      ),
      ...(body !== undefined && body.length > 0 && { body: new Uint8Array(body) }),
      redirect: 'manual',
    });

  const send = async (res: ServerResponse, upstream: Response): Promise<void> => {
    const headers: Record<string, string> = {};
    upstream.headers.forEach((v, k) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(k))
        headers[k] = v;
    });
    // The discovery document names the emulator's own URLs; keep the browser and the service on the stub's.
    let text = Buffer.from(await upstream.arrayBuffer());
    if ((headers['content-type'] ?? '').includes('json') && text.includes(emulatorUrl))
      text = Buffer.from(text.toString('utf8').replaceAll(emulatorUrl, stubUrl));
    if (headers['location'] !== undefined)
      headers['location'] = headers['location'].replaceAll(emulatorUrl, stubUrl);
    res.writeHead(upstream.status, headers).end(text);
  };

  const json = (res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', ...extra }).end(JSON.stringify(body));
  const gmailError = (status: number, message: string, reason: string) => ({
    error: { code: status, message, errors: [{ message, domain: 'global', reason }], status: 'ERROR' },
  });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://stub');
    requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search, at: Date.now() });
    if (url.pathname === '/oauth2/token' && req.method === 'POST') {
      const upstream = await forward(req, url.pathname, body);
      const text = await upstream.text();
      const sent = new URLSearchParams(body.toString('utf8'));
      try {
        const tokens = JSON.parse(text) as { access_token?: string; refresh_token?: string };
        const refresh = tokens.refresh_token ?? sent.get('refresh_token') ?? undefined;
        if (tokens.refresh_token !== undefined) refreshTokens.push(tokens.refresh_token);
        if (tokens.access_token !== undefined && refresh !== undefined)
          issuedFrom.set(tokens.access_token, refresh);
      } catch {
        // not JSON: passed on as it is
      }
      res.writeHead(upstream.status, {
        'content-type': upstream.headers.get('content-type') ?? 'application/json',
      });
      res.end(text);
      return;
    }
    if (url.pathname === '/oauth2/revoke' && req.method === 'POST') {
      const token = new URLSearchParams(body.toString('utf8')).get('token') ?? '';
      revoked.add(token);
      for (const [access, refresh] of issuedFrom) if (refresh === token) revoked.add(access);
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (url.pathname.startsWith('/gmail/') && bearer !== undefined && revoked.has(bearer)) {
      json(res, 401, gmailError(401, 'Request had invalid authentication credentials.', 'authError'));
      return;
    }
    const fault = faults.find((f) => f.path === undefined || f.path.test(url.pathname));
    if (fault !== undefined && url.pathname.startsWith('/gmail/')) {
      fault.count--;
      if (fault.count <= 0) faults.splice(faults.indexOf(fault), 1);
      json(
        res,
        fault.status,
        gmailError(
          fault.status,
          'Injected fault',
          fault.reason ?? (fault.status === 429 ? 'rateLimitExceeded' : 'backendError'),
        ),
        fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {},
      );
      return;
    }
    const profile = /^\/gmail\/v1\/users\/[^/]+\/profile$/.exec(url.pathname);
    if (profile !== null && req.method === 'GET') {
      const h = (await (
        await forward(req, `/gmail/v1/users/me/history?startHistoryId=0&maxResults=1`)
      ).json()) as {
        historyId?: string;
      };
      const list = (await (
        await forward(req, `/gmail/v1/users/me/messages?maxResults=500&includeSpamTrash=true`)
      ).json()) as {
        resultSizeEstimate?: number;
      };
      json(res, 200, {
        emailAddress: user,
        messagesTotal: list.resultSizeEstimate ?? 0,
        threadsTotal: list.resultSizeEstimate ?? 0,
        historyId: h.historyId ?? '1',
      });
      return;
    }
    if (/^\/gmail\/v1\/users\/[^/]+\/history$/.test(url.pathname)) {
      const start = url.searchParams.get('startHistoryId') ?? '';
      if (staleBefore !== undefined && /^\d+$/.test(start) && BigInt(start) < staleBefore) {
        json(res, 404, gmailError(404, 'Requested entity was not found.', 'notFound'));
        return;
      }
    }
    if (/\/messages\/batchModify$/.test(url.pathname)) {
      const ids = (JSON.parse(body.toString('utf8') || '{}') as { ids?: unknown[] }).ids ?? [];
      if (ids.length > 1000) {
        json(res, 400, gmailError(400, 'Too many ids (limit 1000)', 'invalidArgument'));
        return;
      }
    }
    // The emulator's rfc822msgid: operator never matches (it keeps the colon); Gmail's does.
    const byMessageId = /^rfc822msgid:(\S+)$/.exec(url.searchParams.get('q')?.trim() ?? '');
    if (byMessageId !== null && /\/messages$/.test(url.pathname) && req.method === 'GET') {
      const wanted = `<${byMessageId[1]!.replace(/[<>]/g, '')}>`;
      const all = (await (
        await forward(req, '/gmail/v1/users/me/messages?maxResults=500&includeSpamTrash=true')
      ).json()) as { messages?: { id: string; threadId: string }[] };
      const hits: { id: string; threadId: string }[] = [];
      for (const m of all.messages ?? []) {
        const meta = (await (
          await forward(req, `/gmail/v1/users/me/messages/${m.id}?format=metadata&metadataHeaders=Message-ID`)
        ).json()) as { payload?: { headers?: { name: string; value: string }[] } };
        if (
          meta.payload?.headers?.some(
            (h) => h.name.toLowerCase() === 'message-id' && h.value.trim() === wanted,
          )
        )
          hits.push(m);
      }
      json(res, 200, { messages: hits, resultSizeEstimate: hits.length });
      return;
    }
    const message = /^\/gmail\/v1\/users\/[^/]+\/messages\/([^/]+)$/.exec(url.pathname);
    const format = url.searchParams.get('format') ?? 'full';
    if (message !== null && req.method === 'GET' && (format === 'metadata' || format === 'full')) {
      const upstream = await forward(req, url.pathname + url.search);
      if (!upstream.ok) return send(res, upstream);
      const resource = (await upstream.json()) as { payload?: { headers?: unknown }; snippet?: string };
      const raw = (await (await forward(req, `${url.pathname}?format=raw`)).json()) as { raw?: string };
      const wanted = url.searchParams.getAll('metadataHeaders').map((h) => h.toLowerCase());
      const headers = headersOf(Buffer.from(raw.raw ?? '', 'base64url').toString('latin1')).filter(
        (h) => format === 'full' || wanted.length === 0 || wanted.includes(h.name.toLowerCase()),
      );
      if (resource.payload !== undefined) resource.payload.headers = headers;
      // The emulator reads bodies and attachment names without their charsets; Gmail decodes both.
      const parsed = await PostalMime.parse(Buffer.from(raw.raw ?? '', 'base64url'), {
        attachmentEncoding: 'arraybuffer',
      });
      resource.snippet = escapeHtml((parsed.text ?? '').replace(/\s+/g, ' ').trim().slice(0, 200));
      const named = parsed.attachments.map((a) => a.filename ?? '');
      const walk = (part: Part | undefined): void => {
        if (part === undefined) return;
        if (part.body?.attachmentId !== undefined) part.filename = named.shift() ?? part.filename ?? '';
        for (const child of part.parts ?? []) walk(child);
      };
      walk(resource.payload as Part | undefined);
      json(res, 200, resource);
      return;
    }
    await send(res, await forward(req, url.pathname + url.search, body));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stubUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;

  return {
    url: stubUrl,
    emulatorUrl,
    user,
    requests,
    refreshTokens: () => [...refreshTokens],
    accessTokens: () => [...issuedFrom.keys()],
    expireHistoryBefore(historyId) {
      staleBefore = BigInt(historyId);
    },
    clearFaults() {
      faults.length = 0;
    },
    failNext(count, fault) {
      faults.push({ count, ...fault });
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await emu.close();
    },
  };
}

/** The header fields of a raw message in order, unfolded, values as sent (Gmail returns them like this). */
function headersOf(raw: string): { name: string; value: string }[] {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? '';
  const out: { name: string; value: string }[] = [];
  for (const line of head.split(/\r?\n/)) {
    const last = out.at(-1);
    if (/^[ \t]/.test(line) && last !== undefined) last.value += ` ${line.trim()}`;
    else {
      const colon = line.indexOf(':');
      if (colon > 0) out.push({ name: line.slice(0, colon), value: line.slice(colon + 1).trim() });
    }
  }
  // Gmail hands back UTF-8; raw 8-bit header bytes were read as latin1 above.
  return out.map((h) => ({ name: h.name, value: Buffer.from(h.value, 'latin1').toString('utf8') }));
}

interface Part {
  filename?: string;
  body?: { attachmentId?: string };
  parts?: Part[];
}

/** Gmail's snippets are HTML-escaped. */
function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${String(c.charCodeAt(0))};`);
}
