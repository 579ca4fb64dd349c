import { spawn } from 'node:child_process';
import { chownSync, closeSync, openSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { freePort } from './free-port.ts';
import { deathReason, terminate, track, watchSpawnErrors } from './processes.ts';
import { makeScratchDir, releaseScratchDir } from './scratch-dir.ts';
import { readTail, sleep } from './util.ts';

export const PGBOUNCER = '/usr/sbin/pgbouncer';

/** PgBouncer's pool modes: one server session per client, per transaction, or per statement. */
export type PoolMode = 'session' | 'transaction' | 'statement';

export interface PgBouncer {
  /** postgres:// url of the same role and database, through the pooler. */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * A real PgBouncer (Debian 12's, 1.18) in front of one database of the rig's cluster, in the given pool mode, on
 * 127.0.0.1. Clients are trusted by name (the role's password stays between PgBouncer and PostgreSQL); the pool is
 * as large as a service's connections need, so that what a test sees is the mode, not a queue.
 */
export async function startPgBouncer(
  databaseUrl: string,
  mode: PoolMode,
  o: { roundRobin?: boolean } = {},
): Promise<PgBouncer> {
  const target = new URL(databaseUrl);
  const database = target.pathname.slice(1);
  const user = decodeURIComponent(target.username);
  const dir = makeScratchDir('rig-pgbouncer-');
  // PgBouncer refuses to run as root: as root it runs as nobody.
  const nobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
  const port = await freePort();
  const logPath = join(dir, 'pgbouncer.log');
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `${database} = host=${target.hostname} port=${target.port} dbname=${database} user=${user} password=${decodeURIComponent(target.password)}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${String(port)}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      `pool_mode = ${mode}`,
      'default_pool_size = 60',
      // What the README asks of a pooler so that a node gone without a word frees its locks (decision 0131).
      'tcp_keepalive = 1',
      'tcp_keepidle = 10',
      'tcp_keepintvl = 5',
      'tcp_keepcnt = 3',
      'tcp_user_timeout = 25000',
      // Idle server sessions handed out in turn rather than the one used last.
      ...(o.roundRobin === true ? ['server_round_robin = 1'] : []),
      'max_client_conn = 500',
      `logfile = ${logPath}`,
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
  closeSync(openSync(logPath, 'a'));
  if (nobody !== undefined)
    for (const p of [dir, logPath, join(dir, 'pgbouncer.ini'), join(dir, 'users.txt')])
      chownSync(p, nobody.uid, nobody.gid);
  const child = spawn(PGBOUNCER, [join(dir, 'pgbouncer.ini')], {
    detached: true,
    stdio: 'ignore',
    ...(nobody !== undefined && nobody),
  });
  watchSpawnErrors(child);
  track(child);
  const stop = async () => {
    await terminate(child);
    releaseScratchDir(dir);
  };
  for (let i = 0; ; i++) {
    if (await listening(port)) break;
    const dead = deathReason(child);
    if (i === 100 || dead !== undefined) {
      const log = readTail(logPath);
      await stop();
      throw new Error(`PgBouncer ${dead ?? 'did not listen within 5 s'}:\n${log}`);
    }
    await sleep(50);
  }
  return { url: `postgres://${encodeURIComponent(user)}@127.0.0.1:${String(port)}/${database}`, stop };
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
