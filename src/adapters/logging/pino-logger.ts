import { pino, type DestinationStream, type Level } from 'pino';
import type { Logger } from '../../lib/logger.ts';

/**
 * Fields that must never reach a log line, at the top level and one level down (pino wildcards are one
 * level deep). Values are replaced, not removed, so a reader can see that something was there.
 */
const SENSITIVE = [
  'authorization',
  'cookie',
  'set-cookie',
  'password',
  'newPassword',
  'token',
  'accessToken',
  'refreshToken',
  'apiKey',
  'key',
  'secret',
  'clientSecret',
  'code',
  'codeVerifier',
  'approvalCode',
  'nonce',
  'encryptionKey',
  'databaseUrl',
  'sessionId',
];

export const REDACT_PATHS = [
  ...SENSITIVE,
  ...SENSITIVE.map((k) => `*.${k}`),
  ...SENSITIVE.map((k) => `*["${k}"]`),
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

/**
 * `redact: false` is only for the access log, whose lines carry a fixed set of safe fields (method, path,
 * status, time, request id); redacting ~60 paths on every request line cost ~4% of MCP throughput.
 */
export function createPinoLogger(
  level: Level | 'silent',
  destination: DestinationStream = standardOutput(),
  opts: { redact?: boolean } = {},
): Logger {
  return pino(
    {
      level,
      base: { service: 'inbox-triage' },
      ...(opts.redact !== false && { redact: { paths: REDACT_PATHS, censor: '[redacted]' } }),
      serializers: { err: loggedError },
      timestamp: isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

/**
 * Fields of an error that carry the data a statement worked on rather than what went wrong: PostgreSQL's `detail`
 * ("Failing row contains (…)" — a whole row: a subject, an address, a draft's text — or "Key (…)=(…)"), the PL/pgSQL
 * context (`where`) and the statement it ran (`internalQuery`). Decision 0134.
 */
const DATA_FIELDS: ReadonlySet<string> = new Set(['detail', 'where', 'internalQuery']);

/**
 * An error as a log line shows it: pino's standard serializer (type, message, stack, and the error's own fields),
 * without the fields above, and with `code` (a SQLSTATE such as 23502, or ECONNREFUSED) as `errorCode`, where the
 * redaction of OAuth codes (`*.code`) would have hidden it.
 */
export function loggedError(e: unknown): unknown {
  if (!(e instanceof Error)) return e;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(pino.stdSerializers.err(e)))
    if (k === 'code') out['errorCode'] = v;
    else if (!DATA_FIELDS.has(k)) out[k] = v;
  return out;
}

let lastMs = Number.NaN;
let lastTime = '';

/** pino's `isoTime`, formatted once per millisecond: under load, many lines share one. */
function isoTime(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastTime;
}

let stdout: DestinationStream | undefined;

/**
 * Standard output, written asynchronously and shared by every logger of the process (one stream keeps lines
 * whole). pino's default writes each line with its own synchronous write(2): under load (one access line per
 * request) that was ~10% of an MCP call. Lines logged during one turn of the event loop are joined and handed
 * to pino's asynchronous writer together at the end of the turn — never held back longer, never waiting for a
 * buffer to fill. (Handed one by one, the writer measured the pending text on every line: ~3 µs a line under
 * load.) On exit, whatever is pending is written synchronously, so lines are lost only if the process is
 * killed outright.
 */
function standardOutput(): DestinationStream {
  stdout ??= new TurnBatchedLines(pino.destination({ dest: 1, sync: false }));
  return stdout;
}

type Sink = DestinationStream & { flushSync(): void };

export class TurnBatchedLines implements DestinationStream {
  private readonly sink: Sink;
  private lines: string[] = [];
  private scheduled = false;

  constructor(sink: Sink) {
    this.sink = sink;
    process.once('exit', () => {
      this.flushSync();
    });
  }

  write(line: string): void {
    this.lines.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.drain);
    }
  }

  /** Everything logged so far reaches the file descriptor before this returns. */
  flushSync(): void {
    this.drain();
    this.sink.flushSync();
  }

  private readonly drain = (): void => {
    this.scheduled = false;
    if (this.lines.length === 0) return;
    const text = this.lines.length === 1 ? (this.lines[0] ?? '') : this.lines.join('');
    this.lines = [];
    this.sink.write(text);
  };
}
