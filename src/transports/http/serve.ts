import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Logger } from '../../lib/logger.ts';

/**
 * A route served straight on `node:http`, ahead of the web-standard `fetch` handler: returns true when it took
 * the request (and will answer it), false to let `fetch` have it.
 */
export type NodeLane = (req: IncomingMessage, res: ServerResponse) => boolean;

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
  opts: { host: string; port: number; log: Logger; lane?: NodeLane; keepAliveSeconds?: number },
): Promise<RunningServer> {
  const viaFetch = getRequestListener(fetch, { hostname: opts.host });
  const lane = opts.lane;
  const server = createServer(
    lane === undefined
      ? viaFetch
      : (req, res) => {
          if (!lane(req, res)) void viaFetch(req, res);
        },
  );
  // Node closes an idle connection after 5 s by default. A proxy in front that keeps its own connections idle longer
  // (60 s is common) may send a request on one at the moment it closes, and answer 502 (decision 0132). Node keeps
  // it a further `keepAliveTimeoutBuffer` (1 s) beyond what its Keep-Alive header announces.
  if (opts.keepAliveSeconds !== undefined) server.keepAliveTimeout = opts.keepAliveSeconds * 1000;
  await new Promise<void>((resolve, reject) => {
    const refused = (e: Error) => reject(listenError(e, opts.host, opts.port));
    server.once('error', refused);
    server.listen(opts.port, opts.host, () => {
      server.off('error', refused);
      resolve();
    });
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

/** Why the service could not listen, in an operator's words, with what to change. */
function listenError(e: Error, host: string, port: number): Error {
  const at = `${host}:${String(port)}`;
  switch ((e as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new Error(`${at} is already in use by another program: stop it, or set PORT to a free port`);
    case 'EACCES':
      return new Error(
        `no permission to listen on ${at}: ports below 1024 need privileges; use a higher PORT behind a proxy`,
      );
    case 'EADDRNOTAVAIL':
      return new Error(`${host} is not an address of this machine: set HOST to one of its addresses`);
    default:
      return e;
  }
}
