import type { Env } from '../../config/load-config.ts';
import type { Logger } from '../../lib/logger.ts';

/** What a command may touch of the outside world; tests pass their own. */
export interface CliIo {
  readonly env: Env;
  readonly cwd: string;
  out(line: string): void;
  err(line: string): void;
  /** Resolves when the process is asked to stop (SIGTERM/SIGINT). */
  readonly stopSignal: Promise<string>;
}

/** Exit codes: 0 ok, 1 runtime failure, 2 bad usage or bad configuration. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/**
 * A logger for commands that start the service's parts (`account`): what the service would warn its operator of at
 * start — a restored copy taken up (decision 0137), more connections than the database grants — is said on stderr in
 * one line; the rest is not a command's to print.
 */
export function commandLogger(io: Pick<CliIo, 'err'>): Logger {
  const said = (_: object, msg?: string) => {
    if (msg !== undefined) io.err(`inbox-triage: ${msg}`);
  };
  const logger: Logger = {
    error: said,
    warn: said,
    info: () => undefined,
    debug: () => undefined,
    child: () => logger,
  };
  return logger;
}
