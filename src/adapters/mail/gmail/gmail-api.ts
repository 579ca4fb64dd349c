import type { gmail_v1 } from '@googleapis/gmail';
import { MailAuthError, MailProviderError } from '../../../core/mail/mail-ports.ts';
import type { ConnectionSemaphore } from '../imap/host-semaphore.ts';
import { jitteredBackoff, ProviderStatusError, retryAfterMs } from '../provider-api.ts';

/** Per request: the bearer header, no client-side retry (ours below), a timeout. */
export interface CallOptions {
  readonly headers: { readonly authorization: string };
  readonly retry: false;
  readonly retryConfig: { readonly retry: 0; readonly noResponseRetries: 0 };
  readonly timeout: number;
}

export type Gmail = gmail_v1.Gmail;

/** How a call may be repeated: reads and label sets are idempotent; a send never repeats on its own. */
export type Repeat = 'idempotent' | 'once';

export interface GmailApiOptions {
  /** `https://gmail.googleapis.com` or an emulator. */
  readonly rootUrl: string;
  /** An access token for this mailbox; `force` asks for a fresh one after a 401. */
  readonly token: (force: boolean) => Promise<string>;
  /** Requests in flight per mailbox (Google's per-user concurrency limit answers the excess with 429). */
  readonly limiter: ConnectionSemaphore;
  readonly limiterKey: string;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

const TIMEOUT_MS = 30_000;
/** Attempts for 429 and rate-limit 403 (Google asks for exponential backoff). */
const RATE_ATTEMPTS = 5;
/** Attempts for 5xx and broken connections, idempotent calls only. */
const SERVER_ATTEMPTS = 3;
/** A Retry-After longer than this is not waited out inside one tool call. */
const MAX_WAIT_MS = 20_000;

/** A Gmail API failure the adapter handles itself (404 → "not there", 400 → a refused request). */
export class GmailStatusError extends ProviderStatusError {}

/**
 * The Gmail API through the official client, with what production needs around it: a bearer from the shared
 * token source (refreshed once on a 401), a cap on concurrent requests per mailbox, retries with exponential
 * backoff and full jitter on 429 / 403 `rateLimitExceeded` / `userRateLimitExceeded` honouring Retry-After, and
 * bounded retries of 5xx for idempotent calls. Failures leave as `MailAuthError`, `GmailStatusError` or
 * `MailProviderError` with a safe message: the client's own error carries the request with its Authorization
 * header and is never rethrown or logged.
 */
export class GmailApi {
  private api: Promise<Gmail> | undefined;
  private readonly opts: GmailApiOptions;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(opts: GmailApiOptions) {
    this.opts = opts;
    this.sleep = opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = opts.random ?? Math.random;
  }

  /** The official client, loaded on first use (decision 0027): ~26 MB and 130 ms a service without Gmail never needs. */
  private client(): Promise<Gmail> {
    this.api ??= import('@googleapis/gmail').then(({ gmail }) =>
      gmail({ version: 'v1', rootUrl: `${this.opts.rootUrl.replace(/\/$/, '')}/` }),
    );
    return this.api;
  }

  async call<T>(
    what: string,
    request: (api: Gmail, options: CallOptions) => Promise<{ data: T }>,
    repeat: Repeat = 'idempotent',
  ): Promise<T> {
    let forced = false;
    let rateTries = 0;
    let serverTries = 0;
    for (;;) {
      const token = await this.opts.token(forced);
      const release = await this.opts.limiter.acquire(this.opts.limiterKey);
      let failure: Failure;
      try {
        const res = await request(await this.client(), {
          headers: { authorization: `Bearer ${token}` },
          retry: false,
          retryConfig: { retry: 0, noResponseRetries: 0 },
          timeout: TIMEOUT_MS,
        });
        return res.data;
      } catch (e) {
        failure = classify(e);
      } finally {
        release();
      }
      if (failure.kind === 'auth') {
        if (!forced) {
          forced = true;
          continue;
        }
        throw new MailAuthError('Gmail refused the access token');
      }
      if (failure.kind === 'rate') {
        rateTries++;
        const wait = failure.retryAfterMs ?? jitteredBackoff(rateTries, this.random);
        if (rateTries >= RATE_ATTEMPTS || wait > MAX_WAIT_MS)
          throw new MailProviderError(
            `Gmail is rate-limiting this mailbox; try again in ${String(Math.ceil(Math.max(wait, 1000) / 1000))} s`,
          );
        await this.sleep(wait);
        continue;
      }
      if (failure.kind === 'server' || failure.kind === 'network') {
        serverTries++;
        if (repeat === 'idempotent' && serverTries < SERVER_ATTEMPTS) {
          await this.sleep(jitteredBackoff(serverTries, this.random));
          continue;
        }
        throw failure.kind === 'network'
          ? new MailProviderError(`Gmail could not be reached (${what})`)
          : new GmailStatusError(failure.status, `Gmail failed (${what}, HTTP ${String(failure.status)})`);
      }
      const words = failure.reason === undefined ? undefined : REFUSAL_WORDS.get(failure.reason);
      throw new GmailStatusError(
        failure.status,
        words === undefined
          ? `Gmail refused ${what} (HTTP ${String(failure.status)}${failure.reason === undefined ? '' : ` ${failure.reason}`})`
          : `Gmail refused ${what}: ${words}`,
      );
    }
  }

  /** Like `call`, but a 404 (no such message, draft or label) is `undefined`. */
  async find<T>(
    what: string,
    request: (api: Gmail, options: CallOptions) => Promise<{ data: T }>,
  ): Promise<T | undefined> {
    try {
      return await this.call(what, request);
    } catch (e) {
      if (e instanceof GmailStatusError && (e.status === 404 || e.status === 400)) return undefined;
      throw e;
    }
  }
}

type Failure =
  | { readonly kind: 'auth' }
  | { readonly kind: 'rate'; readonly retryAfterMs: number | undefined }
  | { readonly kind: 'server'; readonly status: number }
  | { readonly kind: 'network' }
  | { readonly kind: 'refused'; readonly status: number; readonly reason: string | undefined };

/** Reads status, reason and Retry-After from the client's error without keeping it. */
function classify(e: unknown): Failure {
  const err = e as {
    status?: unknown;
    response?: { status?: unknown; headers?: unknown; data?: unknown };
  };
  const status =
    typeof err.response?.status === 'number'
      ? err.response.status
      : typeof err.status === 'number'
        ? err.status
        : undefined;
  if (status === undefined) return { kind: 'network' };
  if (status === 401) return { kind: 'auth' };
  const reason = reasonOf(err.response?.data);
  if (
    status === 429 ||
    (status === 403 && (reason === 'rateLimitExceeded' || reason === 'userRateLimitExceeded'))
  )
    return { kind: 'rate', retryAfterMs: retryAfter(err.response?.headers) };
  if (status >= 500) return { kind: 'server', status };
  return { kind: 'refused', status, reason };
}

/**
 * Google's reasons for a refusal that is nobody's sign-in (decision 0138): the service's project, or the person's
 * organisation. A new sign-in would not help; these words say whose it is to fix.
 */
const REFUSAL_WORDS: ReadonlyMap<string, string> = new Map([
  [
    'accessNotConfigured',
    "the Gmail API is not enabled in this service's Google Cloud project (accessNotConfigured): whoever runs the " +
      'service enables it under APIs & Services → Library',
  ],
  [
    'dailyLimitExceeded',
    "this service's Google Cloud project has used its Gmail API quota for the day (dailyLimitExceeded): try again " +
      'tomorrow, or whoever runs the service asks Google for more',
  ],
  [
    'domainPolicy',
    'the Google Workspace administrators of this address do not let apps read its mail (domainPolicy): they can ' +
      "allow this service's app",
  ],
]);

/** Google's reason code for a failure, limited to word characters: never its message. */
function reasonOf(data: unknown): string | undefined {
  const errors = (data as { error?: { errors?: { reason?: unknown }[] } } | undefined)?.error?.errors;
  const reason = Array.isArray(errors) ? errors[0]?.reason : undefined;
  return typeof reason === 'string' && /^\w{1,64}$/.test(reason) ? reason : undefined;
}

/** The Retry-After header of the client's error (a fetch Headers object, not always of this realm, or a record). */
function retryAfter(headers: unknown): number | undefined {
  const get = (headers as { get?: unknown } | null | undefined)?.get;
  if (typeof get === 'function')
    return retryAfterMs((get as (name: string) => string | null).call(headers, 'retry-after'));
  const v =
    typeof headers === 'object' && headers !== null
      ? (headers as Record<string, unknown>)['retry-after']
      : undefined;
  return retryAfterMs(typeof v === 'string' ? v : undefined);
}
