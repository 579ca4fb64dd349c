import { MailAuthError, MailProviderError } from '../../../core/mail/mail-ports.ts';
import type { ConnectionSemaphore } from '../imap/host-semaphore.ts';
import { jitteredBackoff, ProviderStatusError, retryAfterMs } from '../provider-api.ts';
import { MAILBOX_FULL } from '../server-words.ts';

/** A Graph answer that was not 2xx: the status and Graph's error code (never its message or the request). */
export class GraphStatusError extends ProviderStatusError {
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(status, message);
    this.code = code;
  }
}

export interface GraphApiOptions {
  /** `https://graph.microsoft.com` or a stub; requests go to `${rootUrl}/v1.0/me/...`. */
  readonly rootUrl: string;
  readonly token: (force: boolean) => Promise<string>;
  /** Graph allows 4 concurrent requests per app and mailbox. */
  readonly limiter: ConnectionSemaphore;
  readonly limiterKey: string;
  readonly fetch?: typeof fetch;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

export type Repeat = 'idempotent' | 'once';

const TIMEOUT_MS = 30_000;
const THROTTLE_ATTEMPTS = 5;
const SERVER_ATTEMPTS = 3;
const MAX_WAIT_MS = 20_000;

/**
 * A thin typed client over fetch for the ~15 Graph mail endpoints we use (decision 0022): every request asks for
 * immutable ids (`Prefer: IdType="ImmutableId"`, so a move keeps the id), carries a bearer from the shared token
 * source (a 401 refreshes once), waits for a slot of the per-mailbox limit, and retries 429/503/504 honouring
 * `Retry-After` (Graph's throttling) with full-jitter backoff otherwise; other 5xx are retried only for idempotent
 * requests. Errors keep Graph's error code and the status, never a body or a header.
 */
export class GraphApi {
  private readonly opts: GraphApiOptions;
  private readonly fetch: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(opts: GraphApiOptions) {
    this.opts = opts;
    this.fetch = opts.fetch ?? fetch;
    this.sleep = opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = opts.random ?? Math.random;
  }

  /** An absolute URL for a path under `/v1.0/me` (links Graph hands back are used as they are). */
  url(path: string): string {
    return path.startsWith('http') ? path : `${this.opts.rootUrl.replace(/\/$/, '')}/v1.0/me${path}`;
  }

  /** JSON in, JSON out; `undefined` for 204/202. */
  async json<T>(
    what: string,
    method: string,
    path: string,
    body?: unknown,
    opts: { repeat?: Repeat; prefer?: string } = {},
  ): Promise<T> {
    const res = await this.send(what, method, path, {
      ...(body !== undefined && { body: JSON.stringify(body), contentType: 'application/json' }),
      ...opts,
    });
    if (res.status === 202 || res.status === 204) return undefined as T;
    return (await res.json()) as T;
  }

  /** Like `json` for a GET, but 404 (and 400 for a malformed id) is `undefined`. */
  async find<T>(what: string, path: string): Promise<T | undefined> {
    try {
      return await this.json<T>(what, 'GET', path);
    } catch (e) {
      if (e instanceof GraphStatusError && (e.status === 404 || e.status === 400)) return undefined;
      throw e;
    }
  }

  /**
   * The body of a GET up to `limit` bytes, the rest not downloaded (`complete` says whether there was any); undefined
   * on 404, and on 400 for a malformed id. A message's MIME can be 150 MB at Microsoft.
   */
  async bytes(what: string, path: string, limit: number): Promise<Prefix | undefined> {
    let res: Response;
    try {
      res = await this.send(what, 'GET', path, {});
    } catch (e) {
      if (e instanceof GraphStatusError && (e.status === 404 || e.status === 400)) return undefined;
      throw e;
    }
    try {
      return await readUpTo(res, limit);
    } catch {
      throw new MailProviderError(`Microsoft Graph could not be reached (${what})`);
    }
  }

  async send(
    what: string,
    method: string,
    path: string,
    o: { body?: string; contentType?: string; repeat?: Repeat; prefer?: string },
  ): Promise<Response> {
    let forced = false;
    let throttled = 0;
    let failed = 0;
    const repeat = o.repeat ?? (method === 'GET' || method === 'PATCH' ? 'idempotent' : 'once');
    for (;;) {
      const token = await this.opts.token(forced);
      const release = await this.opts.limiter.acquire(this.opts.limiterKey);
      let res: Response | undefined;
      try {
        res = await this.fetch(this.url(path), {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            prefer: ['IdType="ImmutableId"', ...(o.prefer === undefined ? [] : [o.prefer])].join(', '),
            accept: 'application/json',
            ...(o.contentType !== undefined && { 'content-type': o.contentType }),
          },
          ...(o.body !== undefined && { body: o.body }),
          redirect: 'error',
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch {
        res = undefined;
      } finally {
        release();
      }
      if (res === undefined) {
        failed++;
        if (repeat === 'idempotent' && failed < SERVER_ATTEMPTS) {
          await this.sleep(jitteredBackoff(failed, this.random));
          continue;
        }
        throw new MailProviderError(`Microsoft Graph could not be reached (${what})`);
      }
      if (res.ok) return res;
      const code = await errorCode(res);
      if (res.status === 401) {
        if (!forced) {
          forced = true;
          continue;
        }
        throw new MailAuthError('Microsoft refused the access token');
      }
      if (res.status === 429 || res.status === 503 || res.status === 504) {
        throttled++;
        const wait = retryAfterMs(res.headers.get('retry-after')) ?? jitteredBackoff(throttled, this.random);
        const safe = res.status === 429 || repeat === 'idempotent';
        if (safe && throttled < THROTTLE_ATTEMPTS && wait <= MAX_WAIT_MS) {
          await this.sleep(wait);
          continue;
        }
        if (res.status === 429)
          throw new GraphStatusError(
            429,
            code,
            `Microsoft is throttling this mailbox; try again in ${String(Math.ceil(Math.max(wait, 1000) / 1000))} s`,
          );
      } else if (res.status >= 500 && repeat === 'idempotent' && ++failed < SERVER_ATTEMPTS) {
        await this.sleep(jitteredBackoff(failed, this.random));
        continue;
      }
      throw new GraphStatusError(
        res.status,
        code,
        OVER_QUOTA.has(code) || res.status === 507
          ? `Microsoft Graph refused ${what}: ${MAILBOX_FULL} (${code})`
          : res.status >= 500
            ? `Microsoft Graph failed (${what}, HTTP ${String(res.status)})`
            : `Microsoft Graph refused ${what} (HTTP ${String(res.status)} ${code})`,
      );
    }
  }
}

/** The first bytes of an answer's body. */
export interface Prefix {
  readonly bytes: Uint8Array;
  /** false when the body went on past the limit. */
  readonly complete: boolean;
}

async function readUpTo(res: Response, limit: number): Promise<Prefix> {
  const reader = res.body?.getReader();
  if (reader === undefined) return { bytes: new Uint8Array(), complete: true };
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(chunks, size), complete: true };
    if (value.length > limit - size) {
      chunks.push(value.subarray(0, limit - size));
      await reader.cancel();
      return { bytes: Buffer.concat(chunks, limit), complete: false };
    }
    chunks.push(value);
    size += value.length;
  }
}

/**
 * Exchange's codes for a mailbox over its quota ("Mailbox has exceeded maximum mailbox size"), answered 403 or 507
 * Insufficient Storage to whatever would store something: a draft, a move, a flag (decision 0084).
 */
const OVER_QUOTA = new Set(['ErrorQuotaExceeded', 'QuotaExceededException']);

/** Graph's error code, limited to word characters: never its message. */
async function errorCode(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { error?: { code?: unknown } };
    const code = body.error?.code;
    return typeof code === 'string' && /^\w{1,64}$/.test(code) ? code : 'error';
  } catch {
    return 'error';
  }
}
