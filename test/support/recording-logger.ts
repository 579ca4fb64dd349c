import type { Logger } from '../../src/lib/logger.ts';

/** A logger that keeps every line (level and arguments as JSON), for tests that check what was never logged. */
export function recordingLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const record =
    (level: string) =>
    (...a: unknown[]) =>
      lines.push(`${level} ${JSON.stringify(a)}`);
  const log: Logger = {
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    child: () => log,
  };
  return { log, lines };
}
