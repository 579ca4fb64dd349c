import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { App } from '../../src/app.ts';

export type ClientKind = 'v2-modern' | 'v2-legacy' | 'v1';

/** Routes a client's HTTP calls into the app in-process (no socket), as the SDK's testing guide does. */
export function inProcessFetch(app: App): (url: string | URL, init?: RequestInit) => Promise<Response> {
  return (url, init) => Promise.resolve(app.fetch(new Request(url, init)));
}

export interface ConnectedClient {
  readonly kind: ClientKind;
  listTools(): Promise<{
    tools: {
      name: string;
      annotations?: Record<string, unknown>;
      inputSchema: Record<string, unknown>;
      outputSchema?: Record<string, unknown>;
    }[];
  }>;
  callTool(
    name: string,
    args?: Record<string, unknown>,
  ): Promise<{ isError?: boolean; structuredContent?: unknown; content: unknown }>;
  listResources(): Promise<{
    resources: { uri: string; name: string; mimeType?: string; _meta?: Record<string, unknown> }[];
  }>;
  readResource(uri: string): Promise<{
    contents: { uri: string; mimeType?: string; text?: string; _meta?: Record<string, unknown> }[];
  }>;
  era(): string | undefined;
  close(): Promise<void>;
}

/** Connects one of the official SDK clients with a bearer token. */
export async function connectClient(app: App, kind: ClientKind, token: string): Promise<ConnectedClient> {
  const url = new URL('/mcp', app.config.baseUrl);
  const requestInit = { headers: { authorization: `Bearer ${token}` } };
  const fetch = inProcessFetch(app);
  if (kind === 'v1') {
    const client = new V1Client({ name: 'test-v1', version: '1.0.0' });
    await client.connect(new V1Transport(url, { requestInit, fetch }));
    return {
      kind,
      listTools: () => client.listTools() as never,
      callTool: (name, args = {}) => client.callTool({ name, arguments: args }) as never,
      listResources: () => client.listResources() as never,
      readResource: (uri) => client.readResource({ uri }) as never,
      era: () => 'legacy',
      close: () => client.close(),
    };
  }
  const client = new Client(
    { name: `test-${kind}`, version: '1.0.0' },
    kind === 'v2-modern' ? { versionNegotiation: { mode: 'auto' } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit, fetch }));
  return {
    kind,
    listTools: () => client.listTools() as never,
    callTool: (name, args = {}) => client.callTool({ name, arguments: args }) as never,
    listResources: () => client.listResources() as never,
    readResource: (uri) => client.readResource({ uri }) as never,
    era: () => client.getProtocolEra(),
    close: () => client.close(),
  };
}
