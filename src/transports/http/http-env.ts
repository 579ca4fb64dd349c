import type { Logger } from '../../lib/logger.ts';

/** Values every request carries through the Hono context. */
export interface HttpEnv {
  Variables: {
    requestId: string;
    log: Logger;
  };
}
