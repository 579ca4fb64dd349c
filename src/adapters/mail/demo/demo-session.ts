import {
  handOverAdded,
  type ChangeOptions,
  type MailSession,
  type Placed,
} from '../../../core/mail/mail-ports.ts';
import { docFromRaw } from './doc-from-raw.ts';
import { demoRaw } from './demo-raw.ts';
import type {
  AttachmentContent,
  FlagState,
  FolderChanges,
  FullMessage,
  RemoteFolder,
  RemoteSummary,
  SearchHit,
  SyncCursor,
} from '../../../core/mail/mail-types.ts';
import type { CanonicalFolder } from '../../../core/messages/folder.ts';
import { htmlToText } from '../../../lib/html-to-text.ts';
import type { DemoMailbox, DemoRow } from './demo-mailbox.ts';

/** A MailSession over the demo mailbox: the same contract as IMAP, answered from SQL. */
export class DemoSession implements MailSession {
  private readonly box: DemoMailbox;
  constructor(box: DemoMailbox) {
    this.box = box;
  }

  async listFolders(): Promise<RemoteFolder[]> {
    return (await this.box.folders()).map((f) => ({
      path: f.path,
      name: f.path === 'INBOX' ? 'Inbox' : f.path,
      canonical: f.canonical as CanonicalFolder | null,
    }));
  }

  async changes(path: string, cursor: SyncCursor | null, opts: ChangeOptions): Promise<FolderChanges> {
    return handOverAdded(await this.allChanges(path, cursor, opts), opts.onAdded);
  }

  private async allChanges(
    path: string,
    cursor: SyncCursor | null,
    opts: ChangeOptions,
  ): Promise<FolderChanges> {
    const f = await this.box.folder(path);
    if (f === undefined) throw await this.box.absence(path);
    if (cursor === null || cursor.uidValidity !== f.uid_validity) {
      const rows = await this.box.rows(path, { newest: opts.windowSize });
      const low = rows.reduce((min, r) => Math.min(min, r.uid), f.uid_next);
      return { cursor: next(f, low), reset: true, added: rows.map(summary), flags: [], removed: [] };
    }
    const added = (await this.box.rows(path, { fromUid: cursor.uidNext })).map(summary);
    const since = cursor.highestModseq === null ? 0 : Number(cursor.highestModseq);
    const changed = await this.box.rows(path, {
      fromUid: cursor.windowLow,
      belowUid: cursor.uidNext,
      changedSince: since,
    });
    const present = new Set((await this.box.uids(path, cursor.windowLow)).map(String));
    return {
      cursor: next(f, cursor.windowLow),
      reset: false,
      added,
      flags: changed.map(flagState),
      removed: opts.knownRefs.filter((ref) => Number(ref) >= cursor.windowLow && !present.has(ref)),
    };
  }

  async flagsOf(path: string, refs: readonly string[]): Promise<FlagState[]> {
    return (await this.box.rows(path, { uids: refs.map(Number) })).map(flagState);
  }

  watch(): Promise<() => Promise<void>> {
    // Nothing arrives in the demo mailbox on its own; writes come through our own tools.
    return Promise.resolve(() => Promise.resolve());
  }

  async fetchOlder(path: string, below: number, count: number): Promise<RemoteSummary[]> {
    // The demo's UIDs are a database integer (below 2^31): a larger bound, NEWEST among them, is that integer's top.
    return (await this.box.rows(path, { belowUid: Math.min(below, 0x7fff_ffff), newest: count })).map(
      summary,
    );
  }

  async fetchMessage(path: string, ref: string): Promise<FullMessage | undefined> {
    const [row] = await this.box.rows(path, { uids: [Number(ref)] });
    if (row === undefined) return undefined;
    const d = row.doc;
    return {
      summary: summary(row),
      cc: d.cc ?? [],
      replyTo: d.replyTo ?? [],
      inReplyTo: d.inReplyTo ?? null,
      references: d.references ?? [],
      text: d.text,
      html: d.html ?? null,
      attachments: (d.attachments ?? []).map((a, i) => ({
        partId: String(i + 2),
        filename: a.filename,
        contentType: a.contentType,
        size: Buffer.from(a.base64, 'base64').length,
        inline: a.inline === true,
      })),
      authenticationResults: d.authenticationResults ?? null,
    };
  }

  async fetchRaw(path: string, ref: string): Promise<Uint8Array | undefined> {
    const [row] = await this.box.rows(path, { uids: [Number(ref)] });
    return row === undefined ? undefined : demoRaw(row.doc);
  }

  async locate(path: string, internetMessageId: string): Promise<Placed | undefined> {
    const row = (await this.box.rows(path)).find((r) => r.doc.messageId === internetMessageId);
    return row === undefined ? undefined : { ref: String(row.uid), position: row.uid };
  }

  async search(query: string, paths: readonly string[], limit: number): Promise<SearchHit[]> {
    const needle = query.toLowerCase();
    const hits: (SearchHit & { date: number })[] = [];
    for (const path of paths) {
      for (const row of await this.box.rows(path)) {
        const d = row.doc;
        const hay = `${d.subject}\n${d.from.name} ${d.from.address}\n${d.text}`.toLowerCase();
        if (hay.includes(needle)) hits.push({ path, summary: summary(row), date: row.date.getTime() });
      }
    }
    return hits
      .sort((a, b) => b.date - a.date)
      .slice(0, limit)
      .map(({ path, summary: s }) => ({ path, summary: s }));
  }

  async openAttachment(path: string, ref: string, partId: string): Promise<AttachmentContent | undefined> {
    const [row] = await this.box.rows(path, { uids: [Number(ref)] });
    const a = row?.doc.attachments?.[Number(partId) - 2];
    if (a === undefined) return undefined;
    const bytes = Buffer.from(a.base64, 'base64');
    return {
      filename: a.filename,
      contentType: a.contentType,
      size: bytes.length,
      content: (async function* () {
        await Promise.resolve();
        yield new Uint8Array(bytes);
      })(),
    };
  }

  listLabels(): Promise<string[]> {
    // The demo's labels live on its messages, as IMAP keywords do.
    return Promise.resolve([]);
  }

  makeLabels(): Promise<string[]> {
    // As IMAP keywords.
    return Promise.resolve([]);
  }

  removeLabelIfUnused(): Promise<boolean> {
    // As IMAP keywords: the demo's labels are only on its messages.
    return Promise.resolve(false);
  }

  ownName(): Promise<string | undefined> {
    // As IMAP: the demo's Sent mail tells it.
    return Promise.resolve(undefined);
  }

  async createFolder(name: string): Promise<void> {
    await this.box.createFolder(name);
  }

  async move(path: string, refs: readonly string[], toPath: string): Promise<Map<string, Placed>> {
    const placed = new Map<string, Placed>();
    for (const ref of refs) {
      const uid = await this.box.move(path, Number(ref), toPath);
      if (uid !== undefined) placed.set(ref, { ref: String(uid), position: uid });
    }
    return placed;
  }

  async setFlags(
    path: string,
    refs: readonly string[],
    add: readonly string[],
    remove: readonly string[],
  ): Promise<ReadonlySet<string>> {
    const found = new Set<string>();
    for (const row of await this.box.rows(path, { uids: refs.map(Number) })) {
      const next = new Set([...row.flags, ...add]);
      for (const f of remove) next.delete(f);
      await this.box.setFlags(path, row.uid, [...next]);
      found.add(String(row.uid));
    }
    return found;
  }

  async append(
    path: string,
    raw: Uint8Array,
    flags: readonly string[],
    date: Date,
  ): Promise<Placed | undefined> {
    const uid = await this.box.append(path, await docFromRaw(raw, date, flags), flags, date);
    return { ref: String(uid), position: uid };
  }

  async deleteOwnDraft(path: string, ref: string): Promise<void> {
    await this.box.expunge(path, Number(ref));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

function next(f: { uid_validity: string; uid_next: number; modseq: number }, windowLow: number): SyncCursor {
  return { uidValidity: f.uid_validity, uidNext: f.uid_next, highestModseq: String(f.modseq), windowLow };
}

function flagState(r: DemoRow): FlagState {
  return {
    ref: String(r.uid),
    unread: !r.flags.includes('\\Seen'),
    starred: r.flags.includes('\\Flagged'),
    labels: r.flags.filter((f) => !f.startsWith('\\')),
  };
}

function summary(r: DemoRow): RemoteSummary {
  const d = r.doc;
  const body = d.text.trim().length < 40 && d.html !== undefined ? htmlToText(d.html) : d.text;
  const root = d.references?.[0] ?? d.inReplyTo ?? d.messageId;
  return {
    ...flagState(r),
    position: r.uid,
    threadId: root.replace(/^<|>$/g, ''),
    internetMessageId: d.messageId,
    subject: d.subject,
    from: d.from,
    to: d.to,
    snippet: body.replace(/\s+/g, ' ').trim().slice(0, 200),
    date: new Date(d.date),
    hasAttachments: (d.attachments?.length ?? 0) > 0,
    size: JSON.stringify(d).length,
    listId: d.listId ?? null,
    listUnsubscribe: d.listUnsubscribe ?? null,
    listUnsubscribePost: d.listUnsubscribePost === true,
  };
}
