import type { ToolError } from './tool-error.ts';
import type { ToolPayload } from './tool-definition.ts';

/** The MCP wire shape of a tool result (content + structuredContent, isError on failure). */
export type CallToolResultWire = {
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: true;
  /** Data for the tool's interactive view only (MCP Apps): hosts pass it to the view, never to the model. */
  _meta?: Record<string, unknown>;
};

/**
 * The JSON text of a result built here, which is both its text item and the serialization of its
 * `structuredContent`: `resultMembersJson` writes it out instead of serializing the payload again. A symbol key,
 * so neither `JSON.stringify` nor the SDK's result schema sees it.
 */
const PAYLOAD_JSON = Symbol('payloadJson');
type BuiltResult = CallToolResultWire & { readonly [PAYLOAD_JSON]?: string };

/** One text item holding the JSON, and the same object as `structuredContent` (DESIGN.md §4). */
export function successResult(
  payload: ToolPayload,
  maxChars: number,
  viewOnly?: Record<string, unknown>,
): CallToolResultWire {
  let text = JSON.stringify(payload);
  let fitted: Record<string, unknown> = payload;
  if (text.length > maxChars) {
    fitted = fitToLimit(payload, maxChars, text.length);
    text = JSON.stringify(fitted);
  }
  const result: BuiltResult = {
    content: [{ type: 'text', text }],
    structuredContent: fitted,
    ...(viewOnly !== undefined && Object.keys(viewOnly).length > 0 && { _meta: viewOnly }),
    [PAYLOAD_JSON]: text,
  };
  return result;
}

export function errorResult(error: ToolError): CallToolResultWire {
  const body = { ...error };
  const text = JSON.stringify(body);
  const result: BuiltResult = {
    content: [{ type: 'text', text }],
    structuredContent: body,
    isError: true,
    [PAYLOAD_JSON]: text,
  };
  return result;
}

/**
 * The members of a tool result as JSON (`"content":…,"structuredContent":…[,"isError":true]`, no braces, no `_meta`),
 * in pieces whose concatenation is the text `JSON.stringify` would give them, for answers written by hand: the
 * payload is serialized once and only its escaped copy in the text item is new. Pieces, because joining a large
 * answer into one string costs more than encoding it (docs/benchmarks-history.md). `_meta` is left to the caller
 * (`resultMetaJson`): the 2026 wire adds the server's identity into it.
 */
export function resultMembersJson(result: CallToolResultWire): string[] {
  const structured = (result as BuiltResult)[PAYLOAD_JSON] ?? JSON.stringify(result.structuredContent);
  const content = JSON.stringify(result.content);
  return [
    '"content":',
    content,
    ',"structuredContent":',
    structured,
    ...(result.isError === true ? [',"isError":true'] : []),
  ];
}

/** The members of a result's `_meta` as JSON without braces (`"k":v,…`), or undefined when it has none. */
export function resultMetaJson(result: CallToolResultWire): string | undefined {
  const inner = result._meta === undefined ? '' : JSON.stringify(result._meta).slice(1, -1);
  return inner === '' ? undefined : inner;
}

const MARKER = '…[truncated]';
const MARKED = /^(\u27e6[a-z0-9]{6}\u27e7)([\s\S]*)(\u27e6\/[a-z0-9]{6}\u27e7)$/;

/** Half a string; a marked sender text (untrusted-marks.ts) is cut inside its marks, which stay whole. */
function halve(value: string): string {
  const m = MARKED.exec(value);
  if (m === null) return value.slice(0, Math.floor(value.length / 2)) + MARKER;
  const [, open = '', inner = '', close = ''] = m;
  return `${open}${inner.slice(0, Math.floor(inner.length / 2))}${MARKER}${close}`;
}

/**
 * Results over the limit are cut where it hurts least — the biggest array is halved or the longest string
 * shortened, repeatedly — and say so in `truncated`, so the agent knows to page or narrow its request instead
 * of trusting a partial answer. Tools page their own lists; this is the safety net.
 */
export function fitToLimit(
  payload: Record<string, unknown>,
  maxChars: number,
  originalChars = JSON.stringify(payload).length,
): Record<string, unknown> {
  if (originalChars <= maxChars) return payload;
  const copy = structuredClone(payload);
  const cut: string[] = [];
  for (let i = 0; i < 64 && JSON.stringify(copy).length > maxChars - 300; i++) {
    const biggest = largestLeaf(copy, '', 0);
    if (biggest === undefined) break;
    const { holder, key, value, path } = biggest;
    if (Array.isArray(value)) {
      (holder as Record<string, unknown>)[key] = value.slice(0, Math.floor(value.length / 2));
    } else {
      (holder as Record<string, unknown>)[key] = halve(value);
    }
    if (!cut.includes(path)) cut.push(path);
  }
  copy['truncated'] = {
    note: `This result was ${String(originalChars)} characters, over the ${String(maxChars)}-character limit, and was cut. Ask for less (a smaller limit, a narrower query, the next page) rather than relying on it.`,
    fields: cut,
  };
  return copy;
}

interface Leaf {
  holder: object;
  key: string | number;
  value: unknown[] | string;
  size: number;
  path: string;
}

function largestLeaf(node: unknown, path: string, depth: number): Leaf | undefined {
  if (typeof node !== 'object' || node === null || depth > 4) return undefined;
  let best: Leaf | undefined;
  const entries: [string | number, unknown][] = Array.isArray(node)
    ? node.map((v, i) => [i, v])
    : Object.entries(node);
  for (const [key, value] of entries) {
    const here = path === '' ? String(key) : `${path}.${String(key)}`;
    if ((Array.isArray(value) && value.length > 1) || (typeof value === 'string' && value.length > 200)) {
      const size = JSON.stringify(value).length;
      if (best === undefined || size > best.size)
        best = { holder: node, key, value: value as unknown[] | string, size, path: here };
    }
    const inner = largestLeaf(value, here, depth + 1);
    if (inner !== undefined && (best === undefined || inner.size > best.size * 0.9)) best = inner;
  }
  return best;
}
