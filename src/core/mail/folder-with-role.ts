import { newId } from '../../lib/random.ts';
import type { Inbox } from '../inboxes/inbox.ts';
import type { CanonicalFolder, Folder, FolderId } from '../messages/folder.ts';
import type { FolderStore } from '../messages/folder-store.ts';
import type { MailSession } from './mail-ports.ts';
import type { MailSessionFactory } from './mail-session-factory.ts';

/**
 * The inbox's folders with one of `role`, made at the provider as `name` when the mailbox has none — the service's
 * Screened (decision 0018), an Archive on the first archive (decision 0076), Drafts and Sent (decision 0087). The
 * mailbox's own list is read first, so a folder another client made since the last sync is found rather than made
 * again; the new list is kept in the index. The mail ports' errors pass through to the caller, which words them. The
 * list may still lack the role: a provider can take the folder without giving it the role.
 */
export async function foldersWithRole(
  deps: { readonly sessions: MailSessionFactory; readonly folders: FolderStore },
  inbox: Inbox,
  role: CanonicalFolder,
  name: string,
): Promise<readonly Folder[]> {
  const session = await deps.sessions.open(inbox);
  try {
    let listed = await session.listFolders();
    if (!listed.some((f) => f.canonical === role)) {
      await session.createFolder(name);
      listed = await session.listFolders();
    }
    return await deps.folders.replaceAll(inbox.id, listed, () => newId('fld') as FolderId);
  } finally {
    await session.close().catch(() => undefined);
  }
}

/** The path of a canonical folder: from the synced index, else asked of the mailbox (before the first sync). */
export async function folderPath(
  folders: FolderStore,
  session: MailSession,
  inbox: Inbox,
  canonical: CanonicalFolder,
): Promise<string | undefined> {
  const known = (await folders.list(inbox.id)).find((f) => f.canonical === canonical);
  if (known !== undefined) return known.path;
  return (await session.listFolders()).find((f) => f.canonical === canonical)?.path;
}

/**
 * The path of a canonical folder, made as `name` when the mailbox has none: Drafts on the first draft and Sent on
 * the first send, as mail clients make them (decision 0087). Undefined when the provider took the folder without
 * giving it the role.
 */
export async function folderPathMade(
  deps: { readonly sessions: MailSessionFactory; readonly folders: FolderStore },
  session: MailSession,
  inbox: Inbox,
  role: CanonicalFolder,
  name: string,
): Promise<string | undefined> {
  return (
    (await folderPath(deps.folders, session, inbox, role)) ??
    (await foldersWithRole(deps, inbox, role, name)).find((f) => f.canonical === role)?.path
  );
}
