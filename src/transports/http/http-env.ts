import type { Logger } from '../../lib/logger.ts';
import type { RequestFrame } from './request-frame.ts';

/** Values every request carries through the Hono context. */
export interface HttpEnv {
  Variables: {
    requestId: string;
    log: Logger;
    frame: RequestFrame;
  };
}
