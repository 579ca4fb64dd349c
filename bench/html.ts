import { demoMessages } from '../src/adapters/mail/demo/demo-content.ts';
import { htmlToText } from '../src/lib/html-to-text.ts';

export const HTML_BYTES = 2_000_000;

/** Markup a sender can write to make a converter scan ahead from every tag: each unit repeated to HTML_BYTES. */
export const ADVERSARIAL: readonly { readonly name: string; readonly unit: string }[] = [
  { name: 'links never closed', unit: '<a href="https://x.example/">y ' },
  { name: 'comments never closed', unit: '<!-- y ' },
  { name: 'tags never ended', unit: '<b ' },
  { name: 'quotes never closed', unit: '<p x="' },
  { name: 'noscript never closed', unit: '<noscript>y ' },
  { name: 'hidden elements nested', unit: '<div hidden><div>' },
  { name: 'list items', unit: '<li>' },
];

export interface HtmlRow {
  readonly name: string;
  readonly ms: number;
  readonly ratio: number;
}

/**
 * What reading a sender's HTML costs (decision 0096): HTML_BYTES of the demo inbox's own newsletters, and the same
 * size of each adversarial markup, converted to text; the median of `runs` each, and each against the newsletters.
 */
export function htmlBench(runs = 7): { ordinaryMs: number; rows: HtmlRow[] } {
  const samples = demoMessages()
    .map((m) => (m as { html?: string }).html)
    .filter((h): h is string => h !== undefined)
    .join('\n');
  const ordinary = samples.repeat(Math.ceil(HTML_BYTES / samples.length)).slice(0, HTML_BYTES);
  const time = (html: string): number => {
    const all: number[] = [];
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      htmlToText(html);
      all.push(performance.now() - start);
    }
    return all.sort((a, b) => a - b)[Math.floor(runs / 2)] as number;
  };
  const ordinaryMs = time(ordinary);
  return {
    ordinaryMs,
    rows: ADVERSARIAL.map(({ name, unit }) => {
      const ms = time(unit.repeat(Math.ceil(HTML_BYTES / unit.length)));
      return { name, ms, ratio: ms / ordinaryMs };
    }),
  };
}
