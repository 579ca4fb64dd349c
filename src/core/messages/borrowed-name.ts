/**
 * Whether a display name borrows a trusted sender's (decision 0118): "Vera Important" written as "vera important",
 * "Important, Vera", "Vera Important (CEO)", "Vera lmportant" (a lower-case L for the I), "Vеra Important" (a Cyrillic
 * е), "Vera Imp0rtant". Names are compared as words, each in a form that reads the same to a person: compatibility
 * forms and accents taken off, case folded, and the look-alikes an impersonator reaches for — Cyrillic and Greek
 * letters shaped like Latin ones, a capital I or a 1 for l, 0 for o, rn for m, vv for w — written as the letter they
 * imitate. A heuristic: it gives the screening agent a signal, never a verdict.
 */

/** Letters of other scripts shaped like a Latin letter, as that letter. */
// prettier-ignore
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  // Cyrillic
  а: 'a', в: 'b', е: 'e', к: 'k', м: 'm', н: 'h', о: 'o', р: 'p', с: 'c', т: 't', у: 'y', х: 'x', і: 'i', ј: 'j',
  ѕ: 's', ԁ: 'd', һ: 'h', ӏ: 'l', ԛ: 'q', ԝ: 'w', ь: 'b', ү: 'y',
  А: 'a', В: 'b', Е: 'e', К: 'k', М: 'm', Н: 'h', О: 'o', Р: 'p', С: 'c', Т: 't', Х: 'x', У: 'y', І: 'i', Ј: 'j',
  Ѕ: 's', Ԁ: 'd', Һ: 'h', Ӏ: 'l',
  // Greek
  α: 'a', ε: 'e', ι: 'i', κ: 'k', ν: 'v', ο: 'o', ρ: 'p', τ: 't', υ: 'u', χ: 'x',
  Α: 'a', Β: 'b', Ε: 'e', Ζ: 'z', Η: 'h', Ι: 'i', Κ: 'k', Μ: 'm', Ν: 'n', Ο: 'o', Ρ: 'p', Τ: 't', Υ: 'y', Χ: 'x',
  // Latin
  ı: 'i', ɡ: 'g', ℓ: 'l',
};

/**
 * After case is folded: the strokes that pass for one another. A capital I and a small l look alike, so i and l are
 * one letter here (as are 1, | and !), and 0 is o.
 */
const STROKES: Readonly<Record<string, string>> = { i: 'l', '1': 'l', '|': 'l', '!': 'l', '0': 'o' };

/** Two letters read as one. */
const PAIRS: readonly (readonly [RegExp, string])[] = [
  [/rn/g, 'm'],
  [/vv/g, 'w'],
];

/** The words of a name in the form it reads as: what two names are compared in. */
export function nameWords(name: string): string[] {
  let latin = '';
  for (const ch of name.normalize('NFKC')) latin += LOOK_ALIKES[ch] ?? ch;
  let s = '';
  for (const ch of latin
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}+/gu, ''))
    s += STROKES[ch] ?? ch;
  for (const [pair, letter] of PAIRS) s = s.replace(pair, letter);
  return s.split(/[^\p{L}\p{N}]+/u).filter((w) => w !== '');
}

/**
 * `name` reads as `trusted`: the same words in any order, or — for a trusted name of two words or more — those words
 * and more ("Vera Important via DocuSign"). A trusted name of fewer than three letters and digits is never matched.
 */
export function borrowsName(name: string, trusted: string): boolean {
  return borrowsWords(nameWords(name), nameWords(trusted));
}

/** `borrowsName` on names already in words (`nameWords`), for comparing many names with many. */
export function borrowsWords(mine: readonly string[], theirs: readonly string[]): boolean {
  // Most pairs differ in the first word: settled before anything is built.
  const [first] = theirs;
  if (first === undefined || !mine.includes(first) || theirs.join('').length < 3) return false;
  if (theirs.length === 1) return mine.length === 1 && mine[0] === theirs[0];
  const left = [...mine];
  for (const w of theirs) {
    const at = left.indexOf(w);
    if (at < 0) return false;
    left.splice(at, 1);
  }
  return true;
}
