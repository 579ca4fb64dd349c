/**
 * Authentication signals from the receiving server's `Authentication-Results` header (RFC 8601). Only the topmost
 * header counts: the receiving server adds it above everything the sender wrote, so a sender cannot place a
 * forged one there (RFC 8601 §5 also has it remove look-alikes bearing its own name). Results are reduced to the
 * RFC's result keywords; anything else (comments, properties, unknown methods) is dropped, so no sender text
 * passes through here. `dkimPasses` reads the signing domains of the DKIM results too, for a comparison in code
 * (the unsubscribe check, decision 0157); they are never shown to an agent.
 */

export const AUTH_RESULTS = [
  'pass',
  'fail',
  'softfail',
  'neutral',
  'none',
  'temperror',
  'permerror',
  'policy',
] as const;
export type AuthResult = (typeof AUTH_RESULTS)[number];

export interface AuthSignals {
  readonly spf: AuthResult | null;
  readonly dkim: AuthResult | null;
  readonly dmarc: AuthResult | null;
}

export const NO_SIGNALS: AuthSignals = { spf: null, dkim: null, dmarc: null };

/** One result of the header (RFC 8601 `resinfo`): the method and result in lower case, its properties as written. */
interface ResInfo {
  readonly method: string;
  readonly result: string;
  /** `ptype.property` (lower case) → value, quotes taken off; the last of a name written twice. */
  readonly props: ReadonlyMap<string, string>;
}

/**
 * The header's results, in order. Comments are dropped (they may hold anything, "dkim=pass" too, nested); a quoted
 * string is one value, whatever it holds: the server writes sender-chosen text in some properties (a quoted local
 * part of `smtp.mailfrom` may hold "; dkim=pass header.d=bank.example"), and it must not become a result.
 */
function resultsOf(folded: string): ResInfo[] {
  const value = folded.replace(/\r?\n[ \t]+/g, ' ');
  const quoted: string[] = [];
  const out: string[] = [];
  let depth = 0;
  let quote: string[] | undefined;
  // Text is copied a run at a time, up to the next character that changes state: a character at a time took 0.4 s
  // for a megabyte a sender can write.
  const special = /["()\\\0]/g;
  let i = 0;
  while (i < value.length) {
    special.lastIndex = i;
    const at = special.exec(value)?.index ?? value.length;
    if (quote !== undefined) quote.push(value.slice(i, at));
    else if (depth === 0) out.push(value.slice(i, at));
    if (at === value.length) break;
    const c = value[at];
    i = at + 1;
    if (quote !== undefined) {
      if (c === '\\') quote.push(value.slice(i, ++i));
      else if (c === '"') {
        // The value stands in its place as a marker no header can hold (NUL), its text kept aside.
        out.push(`\0${String(quoted.push(quote.join('')) - 1)}\0`);
        quote = undefined;
      } else quote.push(c ?? '');
    } else if (depth > 0) {
      if (c === '\\') i++;
      else if (c === '(') depth++;
      else if (c === ')') depth--;
    } else if (c === '(') {
      depth = 1;
      out.push(' ');
    } else if (c === '"') quote = [];
    else out.push(c === '\0' ? ' ' : (c ?? ''));
  }
  const text = out.join('');
  const unquote = (v: string) => v.replace(/\0(\d+)\0/g, (_, n: string) => quoted[Number(n)] ?? '');
  // The first segment is the authserv-id (the server's name), never a result: start after the first ';'. Exchange Online
  // (Microsoft 365, Outlook.com) writes none and begins with its first result (`spf=pass (sender IP is …)
  // smtp.mailfrom=…; dkim=…`); an authserv-id is a token or a quoted string, which cannot hold an '=', so a first
  // segment that opens with a method's name and '=' is a result.
  const segments = text.split(';');
  if (!/^\s*(?:spf|dkim|dmarc)\s*=/i.test(segments[0] ?? '')) segments.shift();
  const results: ResInfo[] = [];
  for (const segment of segments) {
    // Space is allowed around '=' and '.' (CFWS in the grammar): `header . d = x` is `header.d=x`. Runs of space are
    // made one first: `\s*=` tried at each space of a long run is quadratic (a sender's 40,000 spaces took 1.3 s).
    const tokens = segment
      .replace(/\s+/g, ' ')
      .replace(/ ?([=.]) ?/g, '$1')
      .trim()
      .split(' ');
    const spec = /^([a-z0-9_-]+)(?:\/\d+)?=([a-z]+)$/i.exec(tokens[0] ?? '');
    if (spec === null) continue;
    const props = new Map<string, string>();
    for (const t of tokens.slice(1)) {
      const prop = /^([a-z0-9_-]+\.[a-z0-9_-]+)=(.*)$/i.exec(t);
      if (prop !== null) props.set((prop[1] ?? '').toLowerCase(), unquote(prop[2] ?? ''));
    }
    results.push({ method: (spec[1] ?? '').toLowerCase(), result: (spec[2] ?? '').toLowerCase(), props });
  }
  return results;
}

/** Parses one header value; a method named twice (two DKIM signatures) reports a pass if any passed. */
export function parseAuthResults(value: string | null): AuthSignals {
  if (value === null) return NO_SIGNALS;
  const found: Record<'spf' | 'dkim' | 'dmarc', AuthResult | null> = { spf: null, dkim: null, dmarc: null };
  for (const { method, result } of resultsOf(value)) {
    if (method !== 'spf' && method !== 'dkim' && method !== 'dmarc') continue;
    if (!(AUTH_RESULTS as readonly string[]).includes(result)) continue;
    if (found[method] !== 'pass') found[method] = result as AuthResult;
  }
  return found;
}

/** A DKIM signature the server found valid: its signing domain, and the start of its b= when the server names it. */
export interface DkimPass {
  /** `header.d`, or the domain of `header.i` when the server writes only that (Gmail); as written. */
  readonly domain: string;
  /** `header.b` (RFC 6008): the first characters of the signature's b= value, which tell two of one domain apart. */
  readonly b: string | null;
}

/** The DKIM signatures the header says passed, of those it names a domain for. */
export function dkimPasses(value: string | null): DkimPass[] {
  if (value === null) return [];
  return resultsOf(value).flatMap((r) => {
    if (r.method !== 'dkim' || r.result !== 'pass') return [];
    const i = r.props.get('header.i');
    const domain = r.props.get('header.d') ?? (i === undefined ? undefined : i.slice(i.lastIndexOf('@') + 1));
    if (domain === undefined || domain === '') return [];
    return [{ domain, b: r.props.get('header.b') ?? null }];
  });
}
