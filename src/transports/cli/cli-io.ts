import type { Env } from '../../config/load-config.ts';

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
