const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  copy: '©',
  reg: '®',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
  euro: '€',
  trade: '™',
  bull: '•',
  middot: '·',
};

export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
    if (e.startsWith('#x') || e.startsWith('#X')) return safeChar(Number.parseInt(e.slice(2), 16)) ?? m;
    if (e.startsWith('#')) return safeChar(Number.parseInt(e.slice(1), 10)) ?? m;
    return NAMED[e.toLowerCase()] ?? m;
  });
}

function safeChar(code: number): string | undefined {
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)
    ? String.fromCodePoint(code)
    : undefined;
}

/**
 * Turns an HTML mail body into readable plain text for an agent: block elements become line breaks, links keep
 * their target ("text (https://…)"), scripts, styles and comments vanish, entities are decoded. Not a renderer;
 * enough that a model reads what the person would read, and nothing hidden in markup.
 */
export function htmlToText(html: string): string {
  let s = dropHidden(html.replace(/<!--[\s\S]*?-->/g, ''))
    .replace(/<(script|style|head|title|template|noscript)\b[\s\S]*?<\/\1\s*>/gi, '')
    .replace(
      /<a\b[^>]*?\bhref\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))[^>]*>([\s\S]*?)<\/a\s*>/gi,
      (_m, _q, d: string | undefined, s1: string | undefined, bare: string | undefined, text: string) => {
        const href = decodeEntities(d ?? s1 ?? bare ?? '').trim();
        const label = text.replace(/<[^>]*>/g, '').trim();
        if (href === '' || href.startsWith('#') || /^javascript:/i.test(href)) return label;
        return label === '' || decodeEntities(label) === href ? href : `${label} (${href})`;
      },
    )
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<li\b[^>]*>/gi, '\n• ')
    .replace(/<\/(p|div|h[1-6]|tr|table|ul|ol|blockquote|section|article|header|footer)\s*>/gi, '\n\n')
    .replace(/<(p|div|h[1-6]|tr|table|blockquote|section|article)\b[^>]*>/gi, '\n')
    .replace(/<\/t[dh]\s*>/gi, '\t')
    .replace(/<[^>]*>/g, '');
  s = decodeEntities(s);
  return s
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const HIDDEN =
  /\bhidden\b|aria-hidden\s*=\s*["']?true|style\s*=\s*["'][^"']*(display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?![.\d]*[1-9])|opacity\s*:\s*0(?![.\d]*[1-9])|max-height\s*:\s*0(?![.\d]*[1-9]))/i;
const VOID = new Set([
  'area',
  'base',
  'br',
  'col',
  'embed',
  'hr',
  'img',
  'input',
  'link',
  'meta',
  'source',
  'track',
  'wbr',
]);

/**
 * Removes elements the person would not see (display:none, visibility:hidden, zero size or opacity, the `hidden`
 * attribute): a classic hiding place for instructions aimed at an AI reading the mail. Tracks nesting of the
 * hidden element's own tag name; unclosed hidden elements hide the rest, as a browser would.
 */
function dropHidden(html: string): string {
  const tag = /<(\/?)([a-z][a-z0-9-]*)\b([^>]*)>/gi;
  let out = '';
  let last = 0;
  let hiding: { name: string; depth: number } | undefined;
  for (let m = tag.exec(html); m !== null; m = tag.exec(html)) {
    const [whole, slash = '', rawName = '', attrs = ''] = m;
    const name = rawName.toLowerCase();
    if (hiding === undefined) {
      if (slash === '' && !VOID.has(name) && !attrs.endsWith('/') && HIDDEN.test(attrs)) {
        out += html.slice(last, m.index);
        hiding = { name, depth: 1 };
      }
      continue;
    }
    if (name !== hiding.name) continue;
    hiding.depth += slash === '' ? 1 : -1;
    if (hiding.depth === 0) {
      hiding = undefined;
      last = m.index + whole.length;
    }
  }
  return hiding === undefined ? out + html.slice(last) : out;
}
