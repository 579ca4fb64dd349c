import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/server';

/** A JSON-RPC request in the one shape the fast path serves. */
export interface PlainRequest {
  readonly id: string | number;
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>> | undefined;
  /** `params._meta`, when present. */
  readonly meta: Readonly<Record<string, unknown>> | undefined;
}

const REQUEST_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);
/**
 * The 2026-07-28 per-request envelope keys a request may carry on the fast path; any other `_meta` key (progress
 * tokens, the deprecated log level…) sends the request to the SDK.
 */
const ENVELOPE_KEYS: ReadonlySet<string> = new Set([
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
]);

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Recognises, by hand, the narrowest request shape: exactly `jsonrpc: "2.0"`, a string or safe-integer `id`, a
 * string `method` and an optional object `params` — the shape the SDK's strict JSON-RPC request schema accepts
 * with nothing extra. Anything else (notifications, responses, batches, extra members, odd ids) is not ours to
 * judge: `undefined`, and the SDK answers it. The SDK's zod classifier costs ~14 µs a call; this, well under one.
 */
export function plainRequest(message: unknown): PlainRequest | undefined {
  if (!isPlainObject(message)) return undefined;
  for (const key in message) if (!REQUEST_KEYS.has(key)) return undefined;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== '2.0' || typeof method !== 'string') return undefined;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return undefined;
  if (params === undefined) return { id, method, params: undefined, meta: undefined };
  if (!isPlainObject(params)) return undefined;
  const meta = params['_meta'];
  if (meta === undefined) return { id, method, params, meta: undefined };
  return isPlainObject(meta) ? { id, method, params, meta } : undefined;
}

/** Whether `meta` carries the 2026-07-28 envelope claim (the protocol-version key), valid or not. */
export const claimsEnvelope = (meta: Readonly<Record<string, unknown>>): boolean =>
  PROTOCOL_VERSION_META_KEY in meta;

const MAX_MEMO_KEY = 2048;
const MAX_MEMO_ENTRIES = 256;

/**
 * Whether a `_meta` made only of envelope keys is a valid 2026-07-28 envelope, as the SDK judges it. The envelope
 * is what a client sends on every call (version, capabilities, client info), so the SDK's verdict is remembered
 * per distinct envelope: the SDK classifies a canonical request carrying exactly this `_meta` — the verdict
 * depends on nothing else once `plainRequest` has checked the rest — and the answer is kept in a small map keyed
 * by the envelope's JSON (large or exotic envelopes are judged every time and not kept).
 */
export function envelopeJudge(): (meta: Readonly<Record<string, unknown>>, version: string) => boolean {
  const memo = new Map<string, boolean>();
  const judge = (meta: Readonly<Record<string, unknown>>, version: string) =>
    classifyInboundRequest({
      httpMethod: 'POST',
      body: { jsonrpc: '2.0', id: 0, method: 'tools/list', params: { _meta: meta } },
      protocolVersionHeader: version,
    }).kind === 'modern';
  return (meta, version) => {
    for (const key in meta) if (!ENVELOPE_KEYS.has(key)) return false;
    const key = JSON.stringify(meta);
    if (key.length > MAX_MEMO_KEY) return judge(meta, version);
    const memoKey = `${version}\n${key}`;
    let verdict = memo.get(memoKey);
    if (verdict === undefined) {
      verdict = judge(meta, version);
      if (memo.size >= MAX_MEMO_ENTRIES) memo.clear();
      memo.set(memoKey, verdict);
    }
    return verdict;
  };
}
