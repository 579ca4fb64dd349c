import type { ListResponse } from 'imapflow';
import type { RemoteFolder } from '../../../core/mail/mail-types.ts';
import type { CanonicalFolder } from '../../../core/messages/folder.ts';

/**
 * Canonical ids from RFC 6154 SPECIAL-USE (imapflow also reports INBOX as `\Inbox`, and guesses from well-known
 * localized names when the server has no SPECIAL-USE, e.g. Outlook's "Sent Items"). `\Flagged` is a virtual
 * view, not a place, so it gets none.
 */
const SPECIAL_USE: Record<string, CanonicalFolder> = {
  '\\Inbox': 'inbox',
  '\\Sent': 'sent',
  '\\Drafts': 'drafts',
  '\\Archive': 'archive',
  '\\Junk': 'spam',
  '\\Trash': 'trash',
  '\\All': 'all',
};

/** Where the screening feature files mail: our own folder, found by name since no server marks it. */
const SCREENED = 'screened';

/** A server's own flag beats a user hint, which beats a guess from the folder name. */
const SOURCE_RANK: Record<string, number> = { extension: 0, user: 1, name: 2 };

export function toRemoteFolders(list: readonly ListResponse[]): RemoteFolder[] {
  const selectable = list.filter((f) => !f.flags.has('\\Noselect') && !f.flags.has('\\NonExistent'));
  const candidates = selectable
    .map((f) => ({ f, canonical: canonicalOf(f) }))
    .filter((c): c is { f: ListResponse; canonical: CanonicalFolder } => c.canonical !== null)
    .sort((a, b) => rank(a.f) - rank(b.f));
  // Each canonical id names one folder: the best-sourced claim wins.
  const owner = new Map<CanonicalFolder, string>();
  for (const c of candidates) if (!owner.has(c.canonical)) owner.set(c.canonical, c.f.path);
  return selectable.map((f) => {
    const canonical = canonicalOf(f);
    return {
      path: f.path,
      name: f.path.toUpperCase() === 'INBOX' ? 'Inbox' : f.name,
      canonical: canonical !== null && owner.get(canonical) === f.path ? canonical : null,
    };
  });
}

function canonicalOf(f: ListResponse): CanonicalFolder | null {
  if (f.path.toUpperCase() === 'INBOX') return 'inbox';
  const special = f.specialUse === undefined ? undefined : SPECIAL_USE[f.specialUse];
  if (special !== undefined) return special;
  return f.name.toLowerCase() === SCREENED ? 'screened' : null;
}

function rank(f: ListResponse): number {
  if (f.path.toUpperCase() === 'INBOX') return -1;
  return f.specialUse === undefined ? 3 : (SOURCE_RANK[f.specialUseSource ?? 'name'] ?? 3);
}
