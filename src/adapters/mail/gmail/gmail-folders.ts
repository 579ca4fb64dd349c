import type { gmail_v1 } from '@googleapis/gmail';
import type { RemoteFolder } from '../../../core/mail/mail-types.ts';
import type { CanonicalFolder } from '../../../core/messages/folder.ts';

/**
 * Gmail's labels as the folders of the mail ports. A system label is a folder with a canonical role; a user label
 * is a folder by its id (and, on messages, a label by its name); "Archive" is the mail in none of Inbox, Sent,
 * Drafts, Spam and Trash — archiving is leaving the inbox (contract §4.3), never a label of its own.
 */
export const ARCHIVE = 'ARCHIVE';

const SYSTEM: Record<string, { name: string; canonical: CanonicalFolder }> = {
  INBOX: { name: 'Inbox', canonical: 'inbox' },
  SENT: { name: 'Sent', canonical: 'sent' },
  DRAFT: { name: 'Drafts', canonical: 'drafts' },
  SPAM: { name: 'Spam', canonical: 'spam' },
  TRASH: { name: 'Trash', canonical: 'trash' },
};

/** Labels whose mail is not "archived": Archive lists mail with none of them. */
const NOT_ARCHIVED = ['INBOX', 'SENT', 'DRAFT', 'SPAM', 'TRASH'];

/** The user label named this (in any case) is the Screened folder: the first of them, as `folders()` lists them. */
const SCREENED_NAME = 'screened';

export class GmailFolders {
  private readonly byId = new Map<string, gmail_v1.Schema$Label>();
  private readonly screened: string | undefined;

  constructor(labels: readonly gmail_v1.Schema$Label[]) {
    for (const l of labels) if (l.id != null) this.byId.set(l.id, l);
    this.screened =
      this.userLabels().find((l) => (l.name ?? '').toLowerCase() === SCREENED_NAME)?.id ?? undefined;
  }

  folders(): RemoteFolder[] {
    const out: RemoteFolder[] = [];
    for (const [id, system] of Object.entries(SYSTEM))
      if (this.byId.has(id) || id === 'INBOX') out.push({ path: id, ...system });
    out.push({ path: ARCHIVE, name: 'Archive', canonical: 'archive' });
    for (const l of this.userLabels())
      out.push({
        path: l.id ?? '',
        name: l.name ?? '',
        canonical: l.id === this.screened ? 'screened' : null,
      });
    return out;
  }

  /** Whether a message with these labels is in the folder `path` of this mailbox (see `inFolder`). */
  holds(path: string, labelIds: readonly string[] | null | undefined): boolean {
    return inFolder(path, labelIds, this.screened);
  }

  /** Names of the user labels among these ids, sorted (what the index keeps as labels). */
  userLabelNames(ids: readonly string[]): string[] {
    const names: string[] = [];
    for (const id of ids) {
      const l = this.byId.get(id);
      if (l !== undefined && l.type === 'user' && l.name != null) names.push(l.name);
    }
    return names.sort();
  }

  /** The user label with this name or id (keywords arrive by name, list_labels hands out names). */
  userLabel(nameOrId: string): gmail_v1.Schema$Label | undefined {
    const direct = this.byId.get(nameOrId);
    if (direct?.type === 'user') return direct;
    return this.userLabelNamed(nameOrId);
  }

  /** The user label of this name (Gmail's names ignore case), never one an id matches. */
  userLabelNamed(name: string): gmail_v1.Schema$Label | undefined {
    const lower = name.toLowerCase();
    return this.userLabels().find((l) => (l.name ?? '').toLowerCase() === lower);
  }

  userLabels(): gmail_v1.Schema$Label[] {
    return [...this.byId.values()]
      .filter((l) => l.type === 'user')
      .sort((a, b) => (a.name ?? '').localeCompare(b.name ?? ''));
  }

  knowsAll(ids: readonly string[]): boolean {
    return ids.every((id) => this.byId.has(id));
  }

  has(path: string): boolean {
    return path === ARCHIVE || path === 'INBOX' || this.byId.has(path);
  }
}

/**
 * Whether a message with these labels is in the folder `path`, as `messages.list` with `listSelector` sees it: mail in
 * Spam or Trash is in those two only, even when it still carries INBOX or a user label (a client that adds SPAM or
 * TRASH may leave them, and Gmail lists it in neither), so a sync by history agrees with a sync by listing. Mail
 * carrying both SPAM and TRASH (two clients' moves at once can leave both) is in Trash only: one place, as Gmail
 * never shows it in two, and the one the person deletes from. Screened mail (the label `screened`, the Screened
 * folder) is not archived: it waits for the person's review, and an agent tidying Archive must not meet it there.
 */
export function inFolder(
  path: string,
  labelIds: readonly string[] | null | undefined,
  screenedId: string | undefined,
): boolean {
  const ids = labelIds ?? [];
  if (path === ARCHIVE) return !ids.some((id) => NOT_ARCHIVED.includes(id) || id === screenedId);
  if (!includesSpamTrash(path) && ids.some((id) => id === 'SPAM' || id === 'TRASH')) return false;
  if (path === 'SPAM' && ids.includes('TRASH')) return false;
  return ids.includes(path);
}

/**
 * How messages.list selects the folder: a label id, or for Archive a query (Spam and Trash are left out anyway;
 * Gmail's search names a user label by its name, and it ignores case, as the Screened folder's name does). Spam
 * leaves out what is in Trash too (`inFolder`).
 */
export function listSelector(path: string): { labelIds?: string[]; q?: string } {
  if (path === ARCHIVE)
    return {
      q: [...NOT_ARCHIVED.filter((l) => l !== 'SPAM' && l !== 'TRASH'), SCREENED_NAME]
        .map((l) => `-label:${l}`)
        .join(' '),
    };
  return path === 'SPAM' ? { labelIds: [path], q: '-label:TRASH' } : { labelIds: [path] };
}

/**
 * A move between folders as label changes: leave `from`'s label, take `to`'s; Archive has no label, so moving
 * into it only removes, and moving out of it only adds.
 */
export function moveLabels(from: string, to: string): { add: string[]; remove: string[] } {
  const add = to === ARCHIVE ? [] : [to];
  const remove = from === ARCHIVE ? [] : [from];
  if (to === ARCHIVE && !remove.includes('INBOX')) remove.push('INBOX');
  return { add, remove: remove.filter((l) => !add.includes(l)) };
}

/** Whether messages.list should include Spam and Trash for this folder. */
export function includesSpamTrash(path: string): boolean {
  return path === 'SPAM' || path === 'TRASH';
}
