import { MailAuthError, MailProviderError } from '../../core/mail/mail-ports.ts';
import {
  SubmitRefusedError,
  SubmitUncertainError,
  type SubmitReceipt,
} from '../../core/sending/mail-submitter.ts';

/**
 * What the HTTP mail adapters (Gmail, Graph) share: their status error, the Retry-After rule and backoff, bounded
 * parallel reads, positions from received times, the polling watcher and sending a draft exactly once.
 */

/** A provider answer that was not 2xx; `message` is safe to show (no body, no header). */
export class ProviderStatusError extends MailProviderError {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** RFC 9110 §10.2.3: seconds or an HTTP date, as milliseconds to wait. */
export function retryAfterMs(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Full jitter (AWS architecture blog): uniform in [0, 500 ms · 2^attempt], at most 16 s. */
export function jitteredBackoff(attempt: number, random: () => number): number {
  return Math.round(random() * Math.min(16_000, 500 * 2 ** attempt));
}

/**
 * A message's place in a folder for providers without per-folder numbers: its received time (ms) × 1,000 plus
 * three digits from its id, so messages of the same millisecond still order the same way every time. Newer is
 * larger, as with IMAP UIDs; below 2^53 until the year 2255.
 */
export function positionAt(ms: number, id: string): number {
  let tie = 0;
  for (let i = 0; i < id.length; i++) tie = (tie * 31 + id.charCodeAt(i)) % 1000;
  return (Number.isFinite(ms) ? ms : 0) * 1000 + tie;
}

/** `get` for each item, `limit` at a time, in the items' order; what came back undefined (gone) is left out. */
export async function mapPresent<I, T>(
  items: readonly I[],
  limit: number,
  get: (item: I) => Promise<T | undefined>,
): Promise<T[]> {
  const out = new Array<T | undefined>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await get(items[i] as I);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out.filter((x): x is T => x !== undefined);
}

/**
 * Calls `poll` every `intervalMs`, one call at a time (a failed poll is retried on the next tick), until the
 * returned stop, which waits for a poll in progress. `poll` is told whether it was stopped meanwhile.
 */
export function startPolling(
  intervalMs: number,
  poll: (stopped: () => boolean) => Promise<void>,
): () => Promise<void> {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() => poll(() => stopped)).catch(() => undefined);
  }, intervalMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}

/**
 * Sends a mailbox draft exactly once: `prepare` writes the message as composed now and names the draft (a failure
 * there sent nothing), `send` sends it in one request that is never repeated here — a 4xx refused it, anything
 * else after the request left means the outcome is unknown. The provider files the copy in Sent itself.
 */
export async function sendDraftOnce(
  prepare: () => Promise<string>,
  send: (draftId: string) => Promise<void>,
  silence: string,
): Promise<SubmitReceipt> {
  let draftId: string;
  try {
    draftId = await prepare();
  } catch (e) {
    if (e instanceof MailAuthError) throw new SubmitRefusedError(e.message, true);
    if (e instanceof MailProviderError) throw new SubmitRefusedError(e.message);
    throw new SubmitRefusedError('the draft could not be prepared');
  }
  try {
    await send(draftId);
  } catch (e) {
    if (e instanceof MailAuthError) throw new SubmitRefusedError(e.message, true);
    if (e instanceof ProviderStatusError && e.status >= 400 && e.status < 500)
      throw new SubmitRefusedError(e.message);
    throw new SubmitUncertainError(e instanceof MailProviderError ? e.message : silence);
  }
  return { filedByProvider: true };
}

/**
 * Of the refs the index knew, those neither in a window read again nor, as the provider says (`stillIn`: the refs of
 * these still in the folder), anywhere in the folder: what left while the change log that would have said so expired.
 */
export async function goneFromFolder(
  known: readonly string[],
  inWindow: ReadonlySet<string>,
  stillIn: (refs: readonly string[]) => Promise<Iterable<string>>,
): Promise<string[]> {
  const others = known.filter((r) => !inWindow.has(r));
  if (others.length === 0) return [];
  const still = new Set(await stillIn(others));
  return others.filter((r) => !still.has(r));
}
