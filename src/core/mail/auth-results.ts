/**
 * Authentication signals from the receiving server's `Authentication-Results` header (RFC 8601). Only the topmost
 * header counts: the receiving server adds it above everything the sender wrote, so a sender cannot place a
 * forged one there (RFC 8601 §5 also has it remove look-alikes bearing its own name). Results are reduced to the
 * RFC's result keywords; anything else (comments, properties, unknown methods) is dropped, so no sender text
 * passes through here.
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

const METHOD = /;\s*(spf|dkim|dmarc)\s*=\s*([a-z]+)(?=[\s;]|$)/g;

/** Parses one header value; a method named twice (two DKIM signatures) reports a pass if any passed. */
export function parseAuthResults(value: string | null): AuthSignals {
  if (value === null) return NO_SIGNALS;
  // Comments (RFC 5322 CFWS) may contain anything, including "spf=pass": drop them first, nested ones too.
  let text = value.toLowerCase().replace(/\r?\n[ \t]+/g, ' ');
  for (let i = 0; i < 5 && /\([^()]*\)/.test(text); i++) text = text.replace(/\([^()]*\)/g, ' ');
  const found: Record<'spf' | 'dkim' | 'dmarc', AuthResult | null> = { spf: null, dkim: null, dmarc: null };
  // The first segment is the authserv-id (the server's name), never a result: start at the first ';'. Exchange Online
  // (Microsoft 365, Outlook.com) writes none and begins with its first result (`spf=pass (sender IP is …)
  // smtp.mailfrom=…; dkim=…`); an authserv-id is a token or a quoted string, which cannot hold an '=', so a first
  // segment that opens with a method's name and '=' is a result.
  const start = /^\s*(?:spf|dkim|dmarc)\s*=/.test(text) ? 0 : text.indexOf(';');
  if (start < 0) return NO_SIGNALS;
  for (const m of `;${text.slice(start)}`.matchAll(METHOD)) {
    const method = m[1] as 'spf' | 'dkim' | 'dmarc';
    const result = m[2] as AuthResult;
    if (!(AUTH_RESULTS as readonly string[]).includes(result)) continue;
    if (found[method] !== 'pass') found[method] = result;
  }
  return found;
}
