import { MailAuthError, MailProviderError, type ChangeOptions } from '../../core/mail/mail-ports.ts';
import type { RemoteSummary } from '../../core/mail/mail-types.ts';
import {
  SubmitRefusedError,
  SubmitUncertainError,
  type SubmitReceipt,
} from '../../core/sending/mail-submitter.ts';

/**
 * What the HTTP mail adapters (Gmail, Graph) share: their status error, the Retry-After rule and backoff, bounded
 * parallel reads, positions from received times, reading a folder's window afresh, the polling watcher and sending a
 * draft exactly once.
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
 *
 * A poll the provider refuses the credential for calls `onRefused` (the watch's `onChange`: a sync, which marks the
 * inbox for reconnecting when the refusal is real, decision 0095) — it used to be retried unheard until the next
 * periodic sync.
 */
export function startPolling(
  intervalMs: number,
  poll: (stopped: () => boolean) => Promise<void>,
  onRefused: () => void,
): () => Promise<void> {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running
      .then(() => poll(() => stopped))
      .catch((e: unknown) => {
        if (e instanceof MailAuthError && !stopped) onRefused();
      });
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
    if (e instanceof MailAuthError) throw new SubmitRefusedError(e.message, { authFailed: true });
    if (e instanceof MailProviderError) throw new SubmitRefusedError(e.message);
    throw new SubmitRefusedError('the draft could not be prepared');
  }
  try {
    await send(draftId);
  } catch (e) {
    if (e instanceof MailAuthError) throw new SubmitRefusedError(e.message, { authFailed: true });
    if (e instanceof ProviderStatusError && e.status >= 400 && e.status < 500)
      throw new SubmitRefusedError(e.message);
    throw new SubmitUncertainError(e instanceof MailProviderError ? e.message : silence);
  }
  return { filedByProvider: true };
}

/**
 * Which of these known refs are still in a folder whose change log expired (decision 0045). A few are read one by one;
 * many (an agent may have indexed the whole folder with load_older_messages) are found by listing the folder's ids,
 * when its size says that takes fewer requests than a read each. A ref the list leaves out is read before it counts
 * as gone: a listing may lag a change of seconds ago (Gmail lists Archive by a search), and a message wrongly taken
 * out of the index would not come back by itself, being below the window.
 */
export async function stillInFolder(
  refs: readonly string[],
  folder: {
    /** Ids one page of the listing names. */
    readonly pageSize: number;
    /** How many messages the folder holds, or more; undefined when the provider does not say. */
    size(): Promise<number | undefined>;
    listIds(): Promise<ReadonlySet<string>>;
    /** The refs among these still in the folder, one read each. */
    read(refs: readonly string[]): Promise<string[]>;
  },
): Promise<string[]> {
  if (refs.length <= 2) return folder.read(refs);
  const size = await folder.size();
  if (size === undefined || Math.ceil(size / folder.pageSize) + 1 >= refs.length) return folder.read(refs);
  const listed = await folder.listIds();
  return [...refs.filter((r) => listed.has(r)), ...(await folder.read(refs.filter((r) => !listed.has(r))))];
}

/**
 * A folder's newest window read afresh, batch by batch, as Gmail and Graph both do: each batch handed over (or kept
 * as `added`), its positions and refs noted. `end` gives the window's bounds and, when it is not a reset (an expired
 * change log, decision 0045), the known refs gone from the folder: neither in the window nor, as the provider says
 * (`stillIn`: the refs of these still in the folder), anywhere in it.
 */
export class FreshWindow {
  readonly added: RemoteSummary[] = [];
  private readonly inWindow = new Set<string>();
  private low = Number.POSITIVE_INFINITY;
  private high = 0;
  private readonly opts: ChangeOptions;
  readonly reset: boolean;

  constructor(opts: ChangeOptions, reset: boolean) {
    this.opts = opts;
    this.reset = reset;
  }

  async take(batch: readonly RemoteSummary[]): Promise<void> {
    for (const m of batch) {
      this.low = Math.min(this.low, m.position);
      this.high = Math.max(this.high, m.position);
      this.inWindow.add(m.ref);
    }
    if (this.opts.onAdded !== undefined) {
      if (batch.length > 0) await this.opts.onAdded(batch, this.reset);
    } else this.added.push(...batch);
  }

  async end(
    stillIn: (refs: readonly string[]) => Promise<Iterable<string>>,
  ): Promise<{ windowLow: number; uidNext: number; removed: string[] }> {
    const empty = this.low === Number.POSITIVE_INFINITY;
    const windowLow = empty ? Date.now() * 1000 : this.low;
    const others = this.reset ? [] : this.opts.knownRefs.filter((r) => !this.inWindow.has(r));
    const still = others.length === 0 ? new Set<string>() : new Set(await stillIn(others));
    return {
      windowLow,
      uidNext: empty ? windowLow : this.high + 1,
      removed: others.filter((r) => !still.has(r)),
    };
  }
}
