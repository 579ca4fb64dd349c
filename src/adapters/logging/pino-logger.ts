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

export function createPinoLogger(level: Level | 'silent', destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'inbox-triage' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}
