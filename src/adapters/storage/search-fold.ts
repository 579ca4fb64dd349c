/**
 * How the index keeps a message's searchable text, and how a query is put to it: compatibility forms unfolded (ﬁ →
 * fi, full-width letters), accents and other combining marks dropped, lower case. A person asks for "jose", "cafe" or
 * "muller" as readily as for "José", "café" or "Müller", and mail clients find either; a plain lower-case match did
 * not (decision 0086). Letters that are not a base letter with a mark (ß, ø, ł) stay as they are.
 */
export function searchFold(text: string): string {
  // ASCII, most of any index, has nothing to unfold: every synced message passes here.
  if (!/[^\x00-\x7f]/.test(text)) return text.toLowerCase();
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}
