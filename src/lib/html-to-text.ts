import { HTML_ENTITIES } from './html-entities.ts';

/** Names by exact spelling, then in lower case for the few that are (or were written) in capitals: `&AMP;`, `&COPY;`. */
const NAMED = new Map(Object.entries(HTML_ENTITIES));

export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z][a-z0-9]*);/gi, (m, e: string) => {
    if (e.startsWith('#x') || e.startsWith('#X')) return safeChar(Number.parseInt(e.slice(2), 16)) ?? m;
    if (e.startsWith('#')) return safeChar(Number.parseInt(e.slice(1), 10)) ?? m;
    if (e === 'nbsp') return ' ';
    const code = NAMED.get(e) ?? NAMED.get(e.toLowerCase());
    return code === undefined ? m : String.fromCodePoint(code);
  });
}

function safeChar(code: number): string | undefined {
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)
    ? String.fromCodePoint(code)
    : undefined;
}

/**
 * What a tag adds to the text: block elements a line break where they start and a blank line where they end, list
 * items a bullet, table cells a tab.
 */
const BLOCKS = 'p div h1 h2 h3 h4 h5 h6 tr table blockquote section article'.split(' ');
const OPENING: Record<string, string> = { br: '\n', li: '\n• ' };
const CLOSING: Record<string, string> = { td: '\t', th: '\t', br: '\n' };
for (const name of BLOCKS) OPENING[name] = '\n';
// Lists, headers and footers end a block too (where they start, their first item or line does the breaking).
for (const name of [...BLOCKS, 'ul', 'ol', 'header', 'footer']) CLOSING[name] = '\n\n';

/**
 * Elements whose content is never read as text. `script`, `style` and `title` hold raw text up to their end tag, to
 * the end of the document when it has none, as a browser reads them; `template` and `noscript` are dropped when
 * closed and read as ordinary elements when not.
 */
const RAW_TEXT = new Set(['script', 'style', 'title']);
const DROPPED = new Set([...RAW_TEXT, 'template', 'noscript']);
const END_TAG = new Map([...DROPPED].map((name) => [name, new RegExp(`</${name}(?=[\\s/>])`, 'gi')]));

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

const MAY_HIDE = /hidden|style/i;
const NONE: ReadonlyMap<string, string> = new Map();
const TAG_NAME = /[a-zA-Z][a-zA-Z0-9-]*/y;
const ATTRIBUTE = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;

/**
 * Turns an HTML mail body into readable plain text for an agent: block elements become line breaks, links keep
 * their target ("text (https://…)"), scripts, styles and comments vanish, entities are decoded, and elements the
 * person would not see are dropped. Not a renderer; enough that a model reads what the person would read, and
 * nothing hidden in markup.
 *
 * One pass over the markup, in time linear in its length whatever a sender writes: every search starts where the
 * last one ended, and a search that found nothing is not made again. (The regular expressions this replaces scanned
 * to the end of the document from every unclosed `<a`, `<!--` or `<` — quadratic, so that one crafted mail of a few
 * hundred kilobytes held the process's only thread for seconds, a few megabytes for hours.)
 */
export function htmlToText(html: string): string {
  const out: string[] = [];
  const n = html.length;
  let link: { readonly href: string; readonly at: number } | undefined;
  let hiding: { readonly name: string; depth: number } | undefined;
  const unclosed = new Set<string>();
  const hiddenClasses = new Set<string>();
  const text = (s: string): void => {
    if (hiding === undefined && s !== '') out.push(decodeEntities(s));
  };
  const endLink = (): void => {
    if (link === undefined) return;
    const words = out.splice(link.at).join('');
    const label = words.replace(/\s+/g, ' ').trim();
    // The spaces around the words stay around the link: "one <a>two </a>three" is not "one two (…)three".
    out.push(`${/^\s/.test(words) ? ' ' : ''}${linkText(label, link.href)}${/\s$/.test(words) ? ' ' : ''}`);
    link = undefined;
  };

  let i = 0;
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt === -1) {
      text(html.slice(i));
      break;
    }
    text(html.slice(i, lt));
    const next = html.charCodeAt(lt + 1);
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end === -1 ? n : end + 3;
      continue;
    }
    const closing = next === 0x2f; /* / */
    TAG_NAME.lastIndex = lt + (closing ? 2 : 1);
    const nameMatch = TAG_NAME.exec(html);
    if (nameMatch === null) {
      if (next === 0x21 /* ! */ || next === 0x3f /* ? */ || closing) {
        // <!DOCTYPE …>, <?xml …?>, </ 3>: a bogus comment up to the next '>', as a browser reads it.
        const end = html.indexOf('>', lt + 1);
        i = end === -1 ? n : end + 1;
      } else {
        text('<');
        i = lt + 1;
      }
      continue;
    }
    const name = nameMatch[0].toLowerCase();
    const attrsFrom = TAG_NAME.lastIndex;
    const end = tagEnd(html, attrsFrom);
    if (end === -1) break; // a tag cut off at the end of the document is not shown
    i = end + 1;
    const attrs = html.slice(attrsFrom, end);

    if (hiding !== undefined) {
      if (name === hiding.name && (closing || !attrs.endsWith('/'))) {
        hiding.depth += closing ? -1 : 1;
        if (hiding.depth === 0) hiding = undefined;
      }
      if (closing || !DROPPED.has(name)) continue;
    }
    if (closing) {
      if (name === 'a') endLink();
      const add = CLOSING[name];
      if (add !== undefined) text(add);
      continue;
    }
    if (DROPPED.has(name) && !unclosed.has(name)) {
      const endTag = END_TAG.get(name) as RegExp;
      endTag.lastIndex = i;
      const found = endTag.exec(html);
      if (found !== null) {
        if (name === 'style') addHiddenClasses(html.slice(i, found.index), hiddenClasses);
        const close = html.indexOf('>', found.index);
        i = close === -1 ? n : close + 1;
        continue;
      }
      if (RAW_TEXT.has(name)) break;
      unclosed.add(name);
    }
    if (hiding !== undefined) continue;
    // Only an <a>, or an element whose attributes could hide it, has attributes worth reading.
    const attributes =
      name === 'a' || MAY_HIDE.test(attrs) || (hiddenClasses.size > 0 && /class/i.test(attrs))
        ? parseAttributes(attrs)
        : NONE;
    if (attributes !== NONE && !VOID.has(name) && !attrs.endsWith('/') && hidden(attributes, hiddenClasses)) {
      hiding = { name, depth: 1 };
      continue;
    }
    if (name === 'a') {
      endLink();
      const href = attributes.get('href');
      if (href !== undefined) link = { href: decodeEntities(href).trim(), at: out.length };
      continue;
    }
    const add = OPENING[name];
    if (add !== undefined) text(add);
  }
  endLink();
  return out
    .join('')
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/ ?\n ?/g, '\n') // a run of spaces is one by now
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Where the tag whose attributes start at `from` ends (its '>'), or -1 when the document ends first. A quote opens a
 * value only right after '=', as the HTML tokenizer reads it; a '>' inside a quoted value does not end the tag.
 */
function tagEnd(html: string, from: number): number {
  const n = html.length;
  let i = from;
  while (i < n) {
    const c = html.charCodeAt(i);
    if (c === 0x3e /* > */) return i;
    i++;
    if (c !== 0x3d /* = */) continue;
    while (i < n && /\s/.test(html[i] as string)) i++;
    const q = html.charCodeAt(i);
    if (q === 0x22 || q === 0x27) {
      const close = html.indexOf(q === 0x22 ? '"' : "'", i + 1);
      if (close === -1) return -1;
      i = close + 1;
    }
  }
  return -1;
}

function parseAttributes(attrs: string): Map<string, string> {
  const found = new Map<string, string>();
  if (attrs.trim() === '' || attrs.trim() === '/') return found;
  for (const m of attrs.matchAll(ATTRIBUTE)) {
    const key = (m[1] as string).toLowerCase();
    if (!found.has(key)) found.set(key, m[2] ?? m[3] ?? m[4] ?? '');
  }
  return found;
}

function linkText(label: string, href: string): string {
  // A script or a whole document in the address is not a place to go: a data: URL can run to megabytes.
  if (href === '' || href.startsWith('#') || /^\s*(javascript|vbscript|data):/i.test(href)) return label;
  return label === '' || label === href ? href : `${label} (${href})`;
}

/**
 * Whether the person would not see the element: the `hidden` attribute, `aria-hidden="true"`, a style that hides it
 * (styleHides), or a class the message's own stylesheet hides (hiddenClasses). A classic hiding place for
 * instructions aimed at an AI reading the mail. `overflow: hidden` alone hides nothing (templates wrap whole messages
 * in it), nor does a class named "hidden" that no rule of the message hides.
 */
function hidden(attributes: ReadonlyMap<string, string>, hiddenClasses: ReadonlySet<string>): boolean {
  if (attributes.has('hidden')) return true;
  if (attributes.get('aria-hidden')?.trim().toLowerCase() === 'true') return true;
  const style = attributes.get('style');
  if (style !== undefined && styleHides(decodeEntities(style))) return true;
  const classes = attributes.get('class');
  return (
    classes !== undefined &&
    hiddenClasses.size > 0 &&
    classes.split(/\s+/).some((c) => hiddenClasses.has(c.toLowerCase()))
  );
}

/**
 * Whether CSS declarations hide what they apply to: `display: none`, `visibility: hidden`; text too small or faint to
 * see (a font size or opacity of zero or next to it); a box of (next to) no height or width with the overflow
 * hidden (the preheader idiom, and the screen-reader-only one); the element moved far off the screen, scaled to
 * nothing or clipped to nothing; or text in its own background's colour — each a way to put words in front of a
 * model that the person never sees (decision 0108). `!important` and case aside. A colour alone is not read: white
 * text on a dark cell an outer element paints is what most templates do.
 */
function styleHides(declarations: string): boolean {
  const css = new Map<string, string>();
  for (const declaration of declarations.split(';')) {
    const colon = declaration.indexOf(':');
    if (colon === -1) continue;
    css.set(
      declaration.slice(0, colon).trim().toLowerCase(),
      declaration
        .slice(colon + 1)
        .replace(/!\s*important/i, '')
        .trim()
        .toLowerCase(),
    );
  }
  const zero = (property: string): boolean => ZERO.test(css.get(property) ?? 'x');
  const fontSize = css.get('font-size');
  const opacity = css.get('opacity');
  const position = css.get('position');
  const positioned = position === 'absolute' || position === 'fixed';
  const background = css.get('background-color') ?? css.get('background');
  const color = css.get('color');
  return (
    css.get('display') === 'none' ||
    css.get('visibility') === 'hidden' ||
    (fontSize !== undefined && (ZERO.test(fontSize) || tiny(fontSize))) ||
    (opacity !== undefined && (ZERO.test(opacity) || Number(opacity) <= 0.05)) ||
    (css.get('overflow') === 'hidden' &&
      (zero('max-height') ||
        zero('height') ||
        zero('max-width') ||
        zero('width') ||
        tiny(css.get('height')) ||
        tiny(css.get('width')))) ||
    far(css.get('text-indent')) ||
    (positioned &&
      (far(css.get('left')) ||
        far(css.get('top')) ||
        far(css.get('right')) ||
        far(css.get('margin-left')) ||
        far(css.get('margin-top')) ||
        CLIPPED_AWAY.test(css.get('clip') ?? ''))) ||
    SCALED_AWAY.test(css.get('transform') ?? '') ||
    (background !== undefined && color !== undefined && sameColor(color, background))
  );
}

// Each number written so that no two quantifiers can take the same digits: `0+\.?0*` tried every split of a run of
// zeros, time quadratic in the run a sender wrote in a style (decision 0158).
const ZERO = /^[-+]?(?:0+(?:\.0*)?|\.0+)(?:[a-z]+|%)?$/;
const CLIPPED_AWAY = /^rect\(\s*0(?:px)?[\s,]+0(?:px)?[\s,]+0(?:px)?[\s,]+0(?:px)?\s*\)$/;
const SCALED_AWAY = /\bscale[xy]?\(\s*(?:0+(?:\.0+)?|\.0+)\s*[,)]/;

/** A length of at most one CSS pixel: text no one can read, a box no one can see into. */
function tiny(value: string | undefined): boolean {
  if (value === undefined) return false;
  const px = pixels(value);
  return px !== undefined && px <= 1;
}

/** A length that takes an element 500 CSS pixels or more off the screen. */
function far(value: string | undefined): boolean {
  if (value === undefined || !value.startsWith('-')) return false;
  const px = pixels(value);
  return px !== undefined && px <= -500;
}

function sameColor(a: string, b: string): boolean {
  const x = colorOf(a);
  return x !== undefined && x === colorOf(b);
}

/** A CSS length in CSS pixels (px, pt, em and rem at 16px, %, of 16px); undefined when it is none of these. */
function pixels(value: string | undefined): number | undefined {
  const m = /^([-+]?(?:\d+(?:\.\d*)?|\.\d+))(px|pt|em|rem|%)?$/.exec(value ?? '');
  if (m === null) return undefined;
  const n = Number(m[1]);
  switch (m[2]) {
    case 'pt':
      return (n * 4) / 3;
    case 'em':
    case 'rem':
      return n * 16;
    case '%':
      return (n / 100) * 16;
    default:
      return m[2] === undefined && n !== 0 ? undefined : n;
  }
}

const NAMED_COLORS: Readonly<Record<string, string>> = { white: 'ffffff', black: '000000' };

/** A colour as six hex digits (#fff, #ffffff, rgb(255, 255, 255), white, black); undefined for anything else. */
function colorOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  const named = NAMED_COLORS[v];
  if (named !== undefined) return named;
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/.exec(v)?.[1];
  if (hex !== undefined) return hex.length === 3 ? hex.replace(/[0-9a-f]/g, (c) => c + c) : hex;
  const rgb = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/.exec(v);
  if (rgb === null) return undefined;
  return rgb
    .slice(1, 4)
    .map((c) => Math.min(255, Number(c)).toString(16).padStart(2, '0'))
    .join('');
}
/**
 * Adds to `into` the classes a stylesheet hides everywhere: a rule at its top level (not inside `@media` or any other
 * at-rule, which apply on some screens only) whose selectors are each a class, alone or after an element name
 * (`.x`, `div.x`), and whose declarations hide (styleHides). One pass over the sheet; comments skipped.
 */
function addHiddenClasses(css: string, into: Set<string>): void {
  let text = '';
  for (let i = 0; i < css.length;) {
    const open = css.indexOf('/*', i);
    if (open === -1) {
      text += css.slice(i);
      break;
    }
    text += css.slice(i, open);
    const close = css.indexOf('*/', open + 2);
    i = close === -1 ? css.length : close + 2;
  }
  let depth = 0;
  let preludeFrom = 0;
  let blockFrom = 0;
  let prelude = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '{') {
      if (depth === 0) {
        prelude = text.slice(preludeFrom, i).trim();
        blockFrom = i + 1;
      }
      depth++;
    } else if (c === '}' && depth > 0) {
      depth--;
      if (depth > 0) continue;
      preludeFrom = i + 1;
      if (prelude.startsWith('@') || !styleHides(text.slice(blockFrom, i))) continue;
      const classes = prelude.split(',').map((sel) => /^[a-z0-9]*\.([a-z0-9_-]+)$/i.exec(sel.trim())?.[1]);
      if (classes.every((c) => c !== undefined)) for (const c of classes) into.add(c.toLowerCase());
    }
  }
}
