import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { dovecotConfig } from './dovecot-config.ts';
import { freePort } from './free-port.ts';
import { deathReason, terminate, track, watchSpawnErrors } from './processes.ts';
import { makeScratchDir, releaseScratchDir } from './scratch-dir.ts';
import { errorMessage, readTail, sleep } from './util.ts';
import { withoutUidplus } from './without-uidplus.ts';

const DOVECOT = '/usr/sbin/dovecot';
const DOVEADM = '/usr/bin/doveadm';

export interface Dovecot {
  host: '127.0.0.1';
  port: number;
  /** Dovecot's own log (auth failures, mailbox errors); removed by stop() unless RIG_KEEP_TMP=1 */
  logPath: string;
  /**
   * Adds an account, usable for the very next login. Changing the password of
   * an account that already logged in can take up to a second to be seen.
   */
  addUser(name: string, password: string): Promise<void>;
  /** The user's ~/Maildir, for seedMaildir. */
  maildirOf(user: string): string;
  /** Open IMAP connections per logged-in user, as the server counts them (`doveadm who`). */
  connections(): Promise<Map<string, number>>;
  /** Disconnects every connection of the user from the server's side (`doveadm kick`). */
  kick(user: string): Promise<void>;
  /**
   * The server's password database failing for this user, as an authentication backend that is away does: its
   * passwd-file made unreadable, so a login is answered `NO [UNAVAILABLE] Temporary authentication failure` until it
   * is back. Dovecot looks at the file at most once a second: wait that long after either change.
   */
  passwordDatabaseDown(user: string, down: boolean): void;
  /**
   * Stops the server (every connection drops) and starts it again on the same port with the same mail; `whileDown`
   * runs in between (to change the mail store behind the server's back).
   */
  restart(whileDown?: () => void | Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

interface Account {
  user: string;
  group: string;
  uid: number;
  gid: number;
}

/**
 * The account Dovecot runs as and owns mail as. As root that is nobody:nogroup
 * (imap-login refuses to run as root and mail uid 0 is rejected); otherwise the
 * invoking user.
 */
export function dovecotAccount(): Account {
  if (process.getuid?.() === 0) return { user: 'nobody', group: 'nogroup', uid: 65534, gid: 65534 };
  const me = userInfo();
  return { user: me.username, group: groupName(me.gid) ?? me.username, uid: me.uid, gid: me.gid };
}

function groupName(gid: number): string | undefined {
  const line = readFileSync('/etc/group', 'utf8')
    .split('\n')
    .find((l) => l.split(':')[2] === String(gid));
  return line?.split(':')[0];
}

function passwdLine(name: string, password: string): string {
  // passwd-file is colon-separated and line-based, and the user name is also a
  // file name (users.d/<name>); anything else would corrupt it.
  if (!/^[^:/\s]+$/.test(name) || name.startsWith('.') || /[:\r\n]/.test(password)) {
    throw new Error(
      `Unsupported Dovecot user ${JSON.stringify(name)}: no colons, slashes, whitespace or newlines`,
    );
  }
  return `${name}:{PLAIN}${password}\n`;
}

function writeUser(usersDir: string, account: Account, name: string, password: string): void {
  const path = join(usersDir, name);
  writeFileSync(path, passwdLine(name, password));
  chownSync(path, account.uid, account.gid);
}

/** Starts a private Dovecot IMAP server on 127.0.0.1 with plaintext LOGIN. */
export async function startDovecot(
  opts: {
    users?: Record<string, string>;
    compress?: boolean;
    capabilities?: string;
    specialUse?: boolean;
    underInbox?: boolean;
    folders?: readonly string[];
    /** false: its answers lack UIDPLUS's COPYUID and APPENDUID, through a proxy whose port is the one given out. */
    uidplus?: boolean;
    /** A certificate and its key (PEM) to offer STARTTLS with. */
    tls?: { cert: string; key: string };
    /** Each user's storage quota (e.g. `64k`): past it the server answers `NO [OVERQUOTA]`. */
    quota?: string;
  } = {},
): Promise<Dovecot> {
  const account = dovecotAccount();
  const dir = makeScratchDir('rig-dovecot-');
  const usersDir = join(dir, 'users.d');
  const logPath = join(dir, 'dovecot.log');
  // The readiness probe logs in as this throwaway account (see waitUntilReady).
  const probe = { user: 'rig-probe', password: randomBytes(9).toString('hex') };
  const users = { ...opts.users, [probe.user]: probe.password };
  for (const sub of ['run', 'state', 'mail', 'users.d']) mkdirSync(join(dir, sub));
  const tls =
    opts.tls === undefined ? undefined : { certPath: join(dir, 'tls.crt'), keyPath: join(dir, 'tls.key') };
  if (opts.tls !== undefined && tls !== undefined) {
    writeFileSync(tls.certPath, opts.tls.cert);
    writeFileSync(tls.keyPath, opts.tls.key, { mode: 0o600 });
  }
  for (const [name, password] of Object.entries(users)) writeUser(usersDir, account, name, password);

  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const confPath = join(dir, 'dovecot.conf');
    writeFileSync(
      confPath,
      dovecotConfig({
        dir,
        port,
        ...account,
        ...(opts.compress === true && { compress: true }),
        ...(opts.capabilities !== undefined && { capabilities: opts.capabilities }),
        ...(opts.specialUse === false && { specialUse: false }),
        ...(opts.underInbox === true && { underInbox: true }),
        ...(opts.folders !== undefined && { folders: opts.folders }),
        ...(tls !== undefined && { tls }),
        ...(opts.quota !== undefined && { quota: opts.quota }),
      }),
    );
    const stderrPath = join(dir, `stderr-${port}.log`);
    closeSync(openSync(stderrPath, 'a'));
    for (const p of [
      dir,
      usersDir,
      confPath,
      ...(tls === undefined ? [] : [tls.certPath, tls.keyPath]),
      stderrPath,
      join(dir, 'run'),
      join(dir, 'state'),
      join(dir, 'mail'),
    ]) {
      chownSync(p, account.uid, account.gid);
    }
    // -F keeps the master in the foreground, so it is our direct child.
    const launch = () => {
      const out = openSync(stderrPath, 'a');
      const c = spawn(DOVECOT, ['-F', '-c', confPath], {
        cwd: dir,
        detached: true,
        stdio: ['ignore', out, out],
        uid: account.uid,
        gid: account.gid,
      });
      closeSync(out);
      watchSpawnErrors(c);
      track(c);
      return c;
    };
    let child = launch();
    try {
      await waitUntilReady(child, port, probe);
    } catch (err) {
      await terminate(child);
      const logs = `dovecot.log:\n${readTail(logPath)}\nstderr:\n${readTail(stderrPath)}`;
      // Another process may have taken the port between freePort and bind.
      if (attempt < 3 && logs.includes('Address already in use')) continue;
      releaseScratchDir(dir);
      throw new Error(`Dovecot failed to start: ${errorMessage(err)}\n${logs}`, { cause: err });
    }
    let stopped: Promise<void> | undefined;
    let passwdChanges = 0;
    const proxy = opts.uidplus === false ? await withoutUidplus(port) : undefined;
    return {
      host: '127.0.0.1',
      port: proxy?.port ?? port,
      logPath,
      addUser: (name, password) => {
        writeUser(usersDir, account, name, password);
        return Promise.resolve();
      },
      maildirOf: (user) => join(dir, 'mail', user, 'Maildir'),
      passwordDatabaseDown: (user, down) => {
        const path = join(usersDir, user);
        chmodSync(path, down ? 0o000 : 0o644);
        // Dovecot reloads a passwd-file when its modification time changes, not its mode.
        const stamp = new Date(Date.now() + 1000 * ++passwdChanges);
        utimesSync(path, stamp, stamp);
      },
      connections: () => doveadmWho(confPath),
      kick: (user) =>
        new Promise((resolve, reject) => {
          execFile(DOVEADM, ['-c', confPath, 'kick', user], { timeout: 10_000 }, (err) => {
            // doveadm kick exits 68 ("no user found") when nothing was connected
            if (err !== null && err.code !== 68) reject(new Error(err.message));
            else resolve();
          });
        }),
      async restart(whileDown) {
        await terminate(child, { signal: 'SIGTERM', graceMs: 3000 });
        await whileDown?.();
        child = launch();
        await waitUntilReady(child, port, probe);
      },
      stop() {
        stopped ??= terminate(child, { signal: 'SIGTERM', graceMs: 3000 })
          .then(() => proxy?.close())
          .then(() => releaseScratchDir(dir));
        return stopped;
      },
    };
  }
}

/**
 * Ready means a real LOGIN succeeds, not just an open port: imap-login accepts
 * connections before the auth process is up (banner "Waiting for
 * authentication process to respond..").
 */
async function waitUntilReady(
  child: ChildProcess,
  port: number,
  probe: { user: string; password: string },
): Promise<void> {
  const deadline = Date.now() + 15_000;
  let lastError = 'no attempt';
  while (Date.now() < deadline) {
    const dead = deathReason(child);
    if (dead) throw new Error(`dovecot ${dead}`);
    try {
      await imapLogin(port, probe.user, probe.password);
      return;
    } catch (err) {
      lastError = errorMessage(err);
    }
    await sleep(50);
  }
  throw new Error(`not ready after 15 s (last probe: ${lastError})`);
}

/** Minimal IMAP client: greeting, LOGIN, LOGOUT. Rejects unless LOGIN says OK. */
function imapLogin(port: number, user: string, password: string): Promise<void> {
  const quote = (s: string): string => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let buffer = '';
    let sentLogin = false;
    let settled = false;
    const fail = (err: Error): void => {
      if (settled) return;
      settled = true;
      socket.destroy();
      reject(err);
    };
    socket.setTimeout(3000, () => fail(new Error('probe timed out')));
    socket.once('error', fail);
    socket.once('close', () => fail(new Error('connection closed before LOGIN completed')));
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).trimEnd();
        buffer = buffer.slice(nl + 1);
        // The greeting may be "* OK Waiting for authentication process to
        // respond.."; imap-login then holds LOGIN until auth is up, which is fine.
        if (!sentLogin && line.startsWith('* OK')) {
          sentLogin = true;
          socket.write(`a1 LOGIN ${quote(user)} ${quote(password)}\r\n`);
        } else if (line.startsWith('a1 OK')) {
          settled = true;
          socket.setTimeout(0);
          socket.end('a2 LOGOUT\r\n');
          resolve();
        } else if (line.startsWith('a1 ')) {
          fail(new Error(`LOGIN answered: ${line}`));
        }
      }
    });
  });
}

/** `doveadm who` against this server: one line per user, `name  count  proto  (pids)  (ips)`. */
function doveadmWho(confPath: string): Promise<Map<string, number>> {
  return new Promise((resolve, reject) => {
    execFile(DOVEADM, ['-c', confPath, 'who'], { timeout: 10_000 }, (err, stdout) => {
      if (err !== null) {
        reject(new Error(err.message));
        return;
      }
      const counts = new Map<string, number>();
      for (const line of stdout.split('\n').slice(1)) {
        const [user, count] = line.trim().split(/\s+/);
        if (user !== undefined && user !== '' && count !== undefined) counts.set(user, Number(count));
      }
      resolve(counts);
    });
  });
}
