import { CANONICAL_FOLDERS, type Folder } from '../messages/folder.ts';

/**
 * Resolves folder names given by an agent: a canonical id (`inbox`, `sent`, …), the folder id (`fld_…`), the
 * provider path, or the display name — case-insensitively for names, exactly for ids and paths. A path or name is
 * taken as given before its outer spaces are dropped: a person's folder may be called " Work " (one made by a typo),
 * and the folder listing shows it so; trimmed first, it was "No folder named" under the name the agent was given.
 */
export function resolveFolder(folders: readonly Folder[], name: string): Folder | undefined {
  const n = name.trim();
  const canonical = (CANONICAL_FOLDERS as readonly string[]).includes(n.toLowerCase())
    ? n.toLowerCase()
    : undefined;
  const named = (wanted: string) => folders.find((f) => f.name.toLowerCase() === wanted.toLowerCase());
  return (
    folders.find((f) => f.id === n) ??
    (canonical === undefined ? undefined : folders.find((f) => f.canonical === canonical)) ??
    folders.find((f) => f.path === name) ??
    folders.find((f) => f.path === n) ??
    named(name) ??
    named(n)
  );
}

export function resolveFolders(
  folders: readonly Folder[],
  names: readonly string[],
): { ok: true; folders: Folder[] } | { ok: false; message: string } {
  const out: Folder[] = [];
  for (const name of names) {
    const f = resolveFolder(folders, name);
    if (f === undefined)
      return {
        ok: false,
        message: `No folder named "${name.slice(0, 100)}".`,
      };
    if (!out.includes(f)) out.push(f);
  }
  if (out.length === 0) return { ok: false, message: 'Select at least one folder.' };
  return { ok: true, folders: out };
}
