// A strict MCP Apps host for tests, run in Chromium: the official v2 client over the service's real /mcp (API
// key), ext-apps' AppBridge, and each view in a sandboxed iframe under the spec's default CSP. Unlike AppBridge on
// its own, it enforces tool visibility as the spec asks of hosts: a view may call only tools whose visibility
// includes "app", and the "model" never sees app-only tools (`modelTools`).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  AppBridge,
  PostMessageTransport,
  getToolUiResourceUri,
  type McpUiHostContext,
} from '@modelcontextprotocol/ext-apps/app-bridge';

interface ListedTool {
  name: string;
  _meta?: { ui?: { visibility?: string[]; resourceUri?: string } };
}

export interface ViewCall {
  name: string;
  arguments: Record<string, unknown>;
  outcome: 'ok' | 'error' | 'refused';
  error?: string;
}

const DEFAULT_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self'; media-src 'self' data:; connect-src 'none'";

const visibility = (t: ListedTool | undefined) => t?._meta?.ui?.visibility ?? ['model', 'app'];

let client: Client | undefined;
let tools = new Map<string, ListedTool>();
let bridge: AppBridge | undefined;
const calls: ViewCall[] = [];

async function connect(key: string): Promise<void> {
  client = new Client(
    { name: 'strict-test-host', version: '1.0.0' },
    {
      capabilities: {
        extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
      },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', location.href), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  const listed = (await client.listTools()).tools as ListedTool[];
  tools = new Map(listed.map((t) => [t.name, t]));
}

/** Calls a tool as the model would (only model-visible tools), then renders its view with the result. */
async function open(
  name: string,
  args: Record<string, unknown>,
  context: McpUiHostContext = {},
): Promise<{ uri: string; mimeType: string | undefined; bytes: number; result: unknown }> {
  if (client === undefined) throw new Error('not connected');
  const tool = tools.get(name);
  if (tool === undefined || !visibility(tool).includes('model'))
    throw new Error(`the model cannot call ${name}`);
  const uri = getToolUiResourceUri(tool);
  if (uri === undefined) throw new Error(`${name} has no view`);
  const result = await client.callTool({ name, arguments: args });
  const read = await client.readResource({ uri });
  const content = read.contents[0] as { text?: string; mimeType?: string } | undefined;
  const html = content?.text ?? '';
  await bridge?.close();
  const frame = document.createElement('iframe');
  frame.id = 'view';
  frame.title = name;
  frame.setAttribute('sandbox', 'allow-scripts');
  frame.style.cssText = 'width:100%;border:1px solid #ccc;height:200px';
  document.getElementById('view')?.remove();
  document.getElementById('frames')!.append(frame);
  const b = new AppBridge(
    null,
    { name: 'strict-test-host', version: '1.0.0' },
    { serverTools: {}, logging: {} },
    { hostContext: { theme: 'light', displayMode: 'inline', locale: 'en-GB', ...context } },
  );
  b.oncalltool = async (params) => {
    const arguments_ = (params.arguments ?? {}) as Record<string, unknown>;
    if (!visibility(tools.get(params.name)).includes('app')) {
      calls.push({ name: params.name, arguments: arguments_, outcome: 'refused' });
      throw new Error(`tool ${params.name} is not callable from an app`);
    }
    const r = await client!.callTool({ name: params.name, arguments: arguments_ });
    const error = (r.structuredContent as { error?: string } | undefined)?.error;
    calls.push({
      name: params.name,
      arguments: arguments_,
      outcome: r.isError === true ? 'error' : 'ok',
      ...(r.isError === true && error !== undefined && { error }),
    });
    return r;
  };
  b.addEventListener('sizechange', ({ height }) => {
    if (height !== undefined) frame.style.height = `${String(Math.min(height, 2000))}px`;
  });
  const ready = new Promise<void>((resolve) => {
    b.addEventListener('initialized', () => {
      void b
        .sendToolInput({ arguments: args })
        .then(() => b.sendToolResult(result as never))
        .then(resolve);
    });
  });
  // Listening before the view loads, as hosts do: the view's first message is its ui/initialize request.
  await b.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  frame.srcdoc = html.replace(
    '<head>',
    `<head><meta http-equiv="Content-Security-Policy" content="${DEFAULT_CSP}">`,
  );
  await ready;
  bridge = b;
  return { uri, mimeType: content?.mimeType, bytes: html.length, result };
}

/** What the strict host would give a model: every tool whose visibility includes "model". */
const modelTools = () =>
  [...tools.values()].filter((t) => visibility(t).includes('model')).map((t) => t.name);

Object.assign(window, { host: { connect, open, calls, modelTools } });
