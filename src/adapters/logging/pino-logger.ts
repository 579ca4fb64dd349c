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
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}

let stdout: DestinationStream | undefined;

/**
 * Standard output, written asynchronously and shared by every logger of the process. pino's default writes each
 * line with its own synchronous write(2): under load (one access line per request) that was ~10% of an MCP
 * call. Asynchronous, a line is handed to the kernel as soon as the previous write finishes — lines that arrive
 * meanwhile go out together, never held back waiting for a buffer to fill. pino flushes it synchronously on exit,
 * so lines are lost only if the process is killed outright. One stream for all loggers keeps lines whole.
 */
function standardOutput(): DestinationStream {
  stdout ??= pino.destination({ dest: 1, sync: false });
  return stdout;
}
