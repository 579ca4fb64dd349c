import type { App } from '../../src/app.ts';
import { listen, type RunningServer } from '../../src/transports/http/serve.ts';
import { silentLogger } from '../../src/lib/logger.ts';
import { freePort } from '../rig/free-port.ts';
import { createTestApp } from './test-app.ts';
import { createKeyViaPage, setUpOwner } from './web-client.ts';

export interface McpTestServer {
  readonly app: App;
  readonly url: string;
  readonly key: string;
  stop(): Promise<void>;
}

/**
 * The service on a real port at http://localhost:<port> with an owner account and an API key. With
 * `anonymous`, requests without credentials act as the owner: the conformance suite cannot send a token.
 */
export async function startMcpTestServer(opts: { anonymous?: boolean } = {}): Promise<McpTestServer> {
  const port = await freePort();
  const baseUrl = `http://localhost:${String(port)}`;
  const config = { baseUrl, mcpAllowedOrigins: [baseUrl] };
  const boot = await createTestApp({ config });
  const key = await createKeyViaPage(await setUpOwner(boot));
  const account = await boot.stores.accounts.findByEmail('owner@example.test');
  if (account === undefined) throw new Error('owner missing');
  await boot.close();
  const app = await createTestApp({
    config: { ...config, dataDir: boot.config.dataDir, database: boot.config.database },
    overrides:
      opts.anonymous === true
        ? {
            mcpUnauthenticatedAs: {
              principal: {
                accountId: account.id,
                credential: { kind: 'api_key', id: 'key_conformance' },
                powers: null,
                inboxes: null,
                scopes: ['mcp:tools'],
                expiresAt: null,
              },
            },
          }
        : {},
  });
  const server: RunningServer = await listen(app.fetch, {
    host: '127.0.0.1',
    port,
    log: silentLogger,
    lane: app.lane,
  });
  return {
    app,
    url: `${baseUrl}/mcp`,
    key,
    stop: async () => {
      await server.close(1000);
      await app.close();
    },
  };
}
