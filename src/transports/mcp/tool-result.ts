import type { ToolError } from './tool-error.ts';
import type { ToolPayload } from './tool-definition.ts';

/** The MCP wire shape of a tool result (content + structuredContent, isError on failure). */
export type CallToolResultWire = {
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: true;
};

/** One text item holding the JSON, and the same object as `structuredContent` (DESIGN.md §4). */
export function successResult(payload: ToolPayload, maxChars: number): CallToolResultWire {
  const fitted = fitToLimit(payload, maxChars);
  return { content: [{ type: 'text', text: JSON.stringify(fitted) }], structuredContent: fitted };
}

export function errorResult(error: ToolError): CallToolResultWire {
  const body = { ...error };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body, isError: true };
}

const MARKER = '…[truncated]';

/**
 * Results over the limit are cut where it hurts least — the biggest array is halved or the longest string
 * shortened, repeatedly — and say so in `truncated`, so the agent knows to page or narrow its request instead
 * of trusting a partial answer. Tools page their own lists; this is the safety net.
 */
export function fitToLimit(payload: Record<string, unknown>, maxChars: number): Record<string, unknown> {
  const originalChars = JSON.stringify(payload).length;
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
      (holder as Record<string, unknown>)[key] = value.slice(0, Math.floor(value.length / 2)) + MARKER;
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
