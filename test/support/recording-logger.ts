import type { Logger } from '../../src/lib/logger.ts';

/**
 * A logger that keeps every line (level and arguments as JSON), for tests that check what was never logged and for
 * failure reports. An Error is written out with its message and stack (and its own fields, such as a driver's `code`):
 * `JSON.stringify` alone gives `{}` for one.
 */
export function recordingLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const json = (a: unknown[]) =>
    JSON.stringify(a, (_k, v: unknown) =>
      v instanceof Error
        ? { ...Object.fromEntries(Object.entries(v)), name: v.name, message: v.message, stack: v.stack }
        : v,
    );
  const record =
    (level: string) =>
    (...a: unknown[]) =>
      lines.push(`${level} ${json(a)}`);
  const log: Logger = {
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    child: () => log,
  };
  return { log, lines };
}
