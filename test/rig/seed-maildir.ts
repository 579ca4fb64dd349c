import {
  chownSync,
  closeSync,
  existsSync,
  fchownSync,
  futimesSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { dovecotAccount } from './dovecot.ts';
import type { SeedMessage } from './seed-message.ts';

/**
 * Puts messages into a Dovecot mailbox. seedMaildir writes Maildir files
 * directly (thousands per second, UIDs assigned lazily by Dovecot on first
 * access); appendViaImap goes through IMAP APPEND for the few cases where a
 * test needs the server to assign UIDs while it watches.
 */

interface SeedOptions {
  /** the user's ~/Maildir (Dovecot.maildirOf(user)) */
  maildir: string;
  /** 'INBOX' (default) or a folder path using '/' as separator, e.g. 'Archive/2024' */
  folder?: string;
  messages: readonly SeedMessage[];
  /** add a non-INBOX folder to the user's subscriptions, as a mail client would (default true) */
  subscribe?: boolean;
}

const SYSTEM_FLAG_LETTERS: Record<string, string> = {
  '\\Draft': 'D',
  '\\Flagged': 'F',
  '\\Answered': 'R',
  '\\Seen': 'S',
  '\\Deleted': 'T',
};

// Filenames must be unique and must sort in seeding order: Dovecot gives new
// files UIDs in filename order, so message i of a batch gets the i-th new UID.
// A fixed-width counter as the "seconds" field guarantees both.
let sequence = Math.floor(Date.now() / 1000);

/** Writes messages straight into Maildir (tmp/ then rename into cur/). */
export async function seedMaildir(opts: SeedOptions): Promise<{ folderDir: string; files: string[] }> {
  const owner = process.getuid?.() === 0 ? dovecotAccount() : undefined;
  const folderDir = folderPath(opts.maildir, opts.folder ?? 'INBOX');
  mkdirOwned(folderDir, owner);
  for (const sub of ['cur', 'new', 'tmp']) mkdirOwned(join(folderDir, sub), owner);
  if (folderDir !== opts.maildir) {
    writeOwned(join(folderDir, 'maildirfolder'), '', owner);
    if (opts.subscribe ?? true) subscribe(opts.maildir, opts.folder ?? 'INBOX', owner);
  }
  const keywords = new KeywordFile(folderDir);

  const files: string[] = [];
  for (const [i, msg] of opts.messages.entries()) {
    const letters = flagLetters(msg.flags ?? [], keywords);
    const base = `${sequence++}.M${i}P${process.pid}.rig,S=${msg.raw.length}`;
    const tmpPath = join(folderDir, 'tmp', base);
    const fd = openSync(tmpPath, 'wx', 0o600);
    try {
      for (let offset = 0; offset < msg.raw.length;) offset += writeSync(fd, msg.raw, offset);
      if (owner) fchownSync(fd, owner.uid, owner.gid);
      if (msg.internalDate) futimesSync(fd, msg.internalDate, msg.internalDate);
    } finally {
      closeSync(fd);
    }
    const finalPath = join(folderDir, 'cur', `${base}:2,${letters}`);
    renameSync(tmpPath, finalPath); // atomic: Dovecot never sees a half-written file
    files.push(finalPath);
    // Let timers and sockets breathe during big batches (10k ≈ 1 s of sync I/O).
    if (i % 1000 === 999) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  keywords.save(owner);
  return { folderDir, files };
}

/** Maildir++ layout: INBOX is the root, "A/B" lives in ".A.B" (names in modified UTF-7). */
function folderPath(maildir: string, folder: string): string {
  if (folder.toUpperCase() === 'INBOX') return maildir;
  const parts = folder.split('/');
  if (parts.some((p) => p === '' || p.includes('.'))) {
    throw new Error(
      `Unsupported folder ${JSON.stringify(folder)}: Maildir++ uses '.' on disk, so names may not contain it`,
    );
  }
  return join(maildir, `.${parts.map(modifiedUtf7).join('.')}`);
}

/** RFC 3501 §5.1.3 modified UTF-7, which Dovecot uses for folder names on disk. */
function modifiedUtf7(name: string): string {
  return name.replace(/&/g, '&-').replace(/[^\x20-\x7e]+/g, (run) => {
    const utf16be = Buffer.from(run, 'utf16le').swap16();
    return `&${utf16be.toString('base64').replace(/=+$/, '').replace(/\//g, ',')}-`;
  });
}

/**
 * Dovecot's subscriptions file (format v2, what Dovecot itself writes): a
 * "V\t2\n\n" header, then one mailbox per line, levels separated by a tab and
 * names in modified UTF-7.
 */
function subscribe(maildir: string, folder: string, owner: { uid: number; gid: number } | undefined): void {
  const path = join(maildir, 'subscriptions');
  const entry = folder.split('/').map(modifiedUtf7).join('\t');
  const lines = existsSync(path) ? readFileSync(path, 'utf8').split('\n') : [];
  const existing = (lines[0]?.startsWith('V\t') ? lines.slice(2) : lines).filter(Boolean);
  if (existing.includes(entry)) return;
  writeOwned(path, `V\t2\n\n${[...existing, entry].join('\n')}\n`, owner);
}

function flagLetters(flags: readonly string[], keywords: KeywordFile): string {
  const letters = flags.map((flag) => {
    if (flag === '\\Recent') throw new Error('\\Recent is set by the server and cannot be seeded');
    if (flag.startsWith('\\')) {
      const letter = SYSTEM_FLAG_LETTERS[flag];
      if (!letter) throw new Error(`Unknown system flag ${flag}`);
      return letter;
    }
    return keywords.letter(flag);
  });
  // Maildir wants the info letters in ASCII order (uppercase flags, then keywords).
  return [...new Set(letters)].sort().join('');
}

/** Dovecot maps IMAP keywords to letters a–z via the folder's dovecot-keywords file. */
class KeywordFile {
  private readonly path: string;
  private readonly names: string[] = [];
  private dirty = false;

  constructor(folderDir: string) {
    this.path = join(folderDir, 'dovecot-keywords');
    if (!existsSync(this.path)) return;
    for (const line of readFileSync(this.path, 'utf8').split('\n')) {
      const match = /^(\d+) (.+)$/.exec(line);
      if (match?.[1] && match[2]) this.names[Number(match[1])] = match[2];
    }
  }

  letter(keyword: string): string {
    let index = this.names.indexOf(keyword);
    if (index < 0) {
      index = this.names.length;
      if (index >= 26)
        throw new Error(`Maildir supports at most 26 keywords per folder; cannot add ${keyword}`);
      this.names.push(keyword);
      this.dirty = true;
    }
    return String.fromCharCode(0x61 + index);
  }

  save(owner: { uid: number; gid: number } | undefined): void {
    if (!this.dirty) return;
    writeOwned(this.path, this.names.map((name, i) => `${i} ${name}\n`).join(''), owner);
  }
}

function mkdirOwned(dir: string, owner: { uid: number; gid: number } | undefined): void {
  if (existsSync(dir)) return;
  mkdirOwned(dirname(dir), owner); // create (and chown) missing parents first, e.g. the user's home
  mkdirSync(dir, { mode: 0o700 });
  if (owner) chownSync(dir, owner.uid, owner.gid);
}

function writeOwned(path: string, content: string, owner: { uid: number; gid: number } | undefined): void {
  writeFileSync(path, content);
  if (owner) chownSync(path, owner.uid, owner.gid);
}
