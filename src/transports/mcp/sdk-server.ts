import {
  createMcpHandler,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import type { Clock } from '../../lib/clock.ts';
import { SERVER_INFO, SERVER_INSTRUCTIONS } from './instructions.ts';
import { callerFrom, toolContext } from './tool-context.ts';
import type { ToolRegistry } from './tool-registry.ts';
import type { ToolServices } from './tool-services.ts';
import { ALL_VIEWS, VIEW_MIME_TYPE } from './views/views.ts';

/** `resources/list`: the interactive views (MCP Apps), the only resources this server has. */
const RESOURCES = ALL_VIEWS.map((v) => ({
  uri: v.uri,
  name: v.name,
  title: v.title,
  description: v.description,
  mimeType: VIEW_MIME_TYPE,
  _meta: v.meta,
}));
const BY_URI = new Map(ALL_VIEWS.map((v) => [v.uri, v]));

export const MAX_MCP_BODY_BYTES = 1_048_576;

/**
 * The official SDK's dual-era handler (2026-07-28 per-request envelope and the 2025 `initialize` era,
 * stateless), serving our registry through the low-level `Server`. Everything the fast path does not take —
 * `initialize`, `server/discover`, notifications, malformed or unusual requests — is answered here, so the
 * protocol's edge cases stay the SDK's. The per-request server holds only two closures; tools and their
 * JSON Schemas are built once in the registry.
 */
export function createSdkHandler(deps: {
  registry: ToolRegistry;
  services: ToolServices;
  clock: Clock;
  onerror: (e: Error) => void;
}): McpHttpHandler {
  const { registry, services, clock } = deps;
  return createMcpHandler(
    ({ authInfo }) => {
      // The low-level Server on purpose: our registry owns tool schemas, validation and results (see fast-path.ts).
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      const server = new Server(SERVER_INFO, {
        capabilities: { tools: {}, resources: {} },
        instructions: SERVER_INSTRUCTIONS,
      });
      // The tools this credential may call (decision 0141); none before the caller is known.
      server.setRequestHandler('tools/list', () => {
        const caller = callerFrom(authInfo);
        return { tools: caller === undefined ? [] : [...registry.listedFor(caller.principal).tools] };
      });
      server.setRequestHandler('resources/list', () => ({ resources: RESOURCES }));
      server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [] }));
      server.setRequestHandler('resources/read', (request) => {
        const view = BY_URI.get(request.params.uri);
        if (view === undefined) throw new ResourceNotFoundError(request.params.uri);
        return { contents: [{ uri: view.uri, mimeType: VIEW_MIME_TYPE, text: view.html, _meta: view.meta }] };
      });
      server.setRequestHandler('tools/call', async (request) => {
        const caller = callerFrom(authInfo);
        if (caller === undefined)
          throw new ProtocolError(ProtocolErrorCode.InternalError, 'Not authenticated.');
        const result = await registry.call(
          request.params.name,
          request.params.arguments,
          toolContext(caller, services, clock),
        );
        if (result === undefined)
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
        return result;
      });
      return server;
    },
    { maxRequestBodySize: MAX_MCP_BODY_BYTES, onerror: deps.onerror },
  );
}
