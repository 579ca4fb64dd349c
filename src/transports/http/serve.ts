import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Logger } from '../../lib/logger.ts';

export interface RunningServer {
  readonly port: number;
  /**
   * Stops accepting connections, lets in-flight requests finish (closing idle keep-alive sockets at once),
   * and force-closes whatever is still open after `timeoutMs`.
   */
  close(timeoutMs: number): Promise<void>;
}

export async function listen(
  fetch: (req: Request) => Response | Promise<Response>,
  opts: { host: string; port: number; log: Logger },
): Promise<RunningServer> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch, hostname: opts.host, port: opts.port }, () => {
      resolve(s);
    }) as Server;
    s.once('error', reject);
  });
  server.on('error', (e) => {
    opts.log.error({ err: e }, 'http server error');
  });
  const port = (server.address() as AddressInfo).port;

  return {
    port,
    close: (timeoutMs) =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => {
          opts.log.warn({ timeoutMs }, 'shutdown timeout: closing open connections');
          server.closeAllConnections();
        }, timeoutMs);
        // A keep-alive socket whose response finishes after close() would otherwise linger until its
        // keep-alive timeout; sweep idle sockets until the last one is gone.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          clearInterval(sweep);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
