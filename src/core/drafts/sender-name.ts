import type { Inbox } from '../inboxes/inbox.ts';
import { folderPath } from '../mail/folder-with-role.ts';
import { MailProviderError, NEWEST, type MailSession } from '../mail/mail-ports.ts';
import type { FolderStore } from '../messages/folder-store.ts';
import { checkSenderName } from './draft-input.ts';

/** How many of the newest messages in Sent are read for the person's name. */
const SAMPLE = 25;

/**
 * The name the person puts on the mail they send from this address: the provider's own, where it keeps one (Gmail's
 * send-as name), else learned from the newest messages in their Sent folder (decision 0088): the name most of those
 * from this address carry, the newest of equals. Undefined when none
 * carries one — an empty Sent, an alias's mail, or only copies the service filed before it knew a name — so a later
 * draft looks again. A name that would not pass as a header value (`checkSenderName`), or that is the address itself,
 * is not one.
 */
export async function learnSenderName(
  folders: FolderStore,
  session: MailSession,
  inbox: Inbox,
): Promise<string | undefined> {
  const own = inbox.email.toLowerCase();
  const usable = (raw: string): string | undefined => {
    const name = checkSenderName(raw);
    return !name.ok || name.value === '' || name.value.toLowerCase() === own ? undefined : name.value;
  };
  // The provider's own name unreadable (a setting it will not show), Sent still tells.
  const kept = usable(
    (await session.ownName().catch((e: unknown) => {
      if (e instanceof MailProviderError) return undefined;
      throw e;
    })) ?? '',
  );
  if (kept !== undefined) return kept;
  const path = await folderPath(folders, session, inbox, 'sent');
  if (path === undefined) return undefined;
  const sent = await session.fetchOlder(path, NEWEST, SAMPLE);
  const counts = new Map<string, number>();
  for (const m of sent) {
    if (m.from.address.toLowerCase() !== own) continue;
    const name = usable(m.from.name);
    if (name !== undefined) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  let best: string | undefined;
  let most = 0;
  // Newest first, in the order the names were met: a later name must be more frequent to win.
  for (const [name, n] of counts)
    if (n > most) {
      best = name;
      most = n;
    }
  return best;
}
