import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './free-port.ts';
import { createDatabaseOn } from './pg-database.ts';
import { deathReason, terminate, track, watchSpawnErrors } from './processes.ts';
import { makeScratchDir, releaseScratchDir } from './scratch-dir.ts';
import { readTail, sleep } from './util.ts';

const PG_BIN = '/usr/lib/postgresql/15/bin';
const APP_ROLE = 'app';
const execFileAsync = promisify(execFile);

interface PgCluster {
  /** postgres:// url of the app role (LOGIN CREATEDB) on its own database */
  url: string;
  port: number;
  /** Creates an empty database owned by the app role; returns its url. */
  createDatabase(name?: string): Promise<string>;
  stop(): Promise<void>;
}

interface Owner {
  uid: number;
  gid: number;
}

// initdb and postgres refuse to run as root; as root every server-side step runs
// as Debian's `postgres` account instead (libuv drops root's extra groups).
async function serverOwner(): Promise<Owner | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const id = async (flag: string): Promise<number> =>
    Number((await execFileAsync('id', [flag, 'postgres'])).stdout.trim());
  return { uid: await id('-u'), gid: await id('-g') };
}

/**
 * Starts one throwaway PostgreSQL 15 cluster on 127.0.0.1 (meant to be shared by
 * a whole test run; use createDatabase for per-file isolation).
 */
export async function startPgCluster(opts: { tls?: { cert: string; key: string } } = {}): Promise<PgCluster> {
  const owner = await serverOwner();
  // Under a world-traversable root (/dev/shm or /tmp, both 1777) so the
  // postgres account can reach it; mkdtemp gives 0700.
  const dir = makeScratchDir('rig-pg-');
  if (owner) chownSync(dir, owner.uid, owner.gid);
  // TLS offered beside plain connections (pg_hba's `host` allows both): the client chooses.
  const tlsSettings: string[] = [];
  if (opts.tls !== undefined) {
    for (const [name, pem] of [
      ['server.crt', opts.tls.cert],
      ['server.key', opts.tls.key],
    ] as const) {
      writeFileSync(join(dir, name), pem, { mode: 0o600 });
      if (owner) chownSync(join(dir, name), owner.uid, owner.gid);
    }
    tlsSettings.push('-c', 'ssl=on', '-c', `ssl_cert_file=${join(dir, 'server.crt')}`);
    tlsSettings.push('-c', `ssl_key_file=${join(dir, 'server.key')}`);
  }
  const data = join(dir, 'data');
  const asServer = { cwd: dir, ...(owner ?? {}) };
  try {
    await execFileAsync(
      join(PG_BIN, 'initdb'),
      [
        '-D',
        data,
        '-U',
        'postgres',
        '--auth-local=trust',
        '--auth-host=scram-sha-256',
        '--no-sync',
        '--no-instructions',
        '-E',
        'UTF8',
        '--locale=C.UTF-8',
      ],
      asServer,
    );
  } catch (err) {
    releaseScratchDir(dir);
    throw new Error(`initdb failed: ${describeExecError(err)}`, { cause: err });
  }

  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const logPath = join(dir, `postgres-${port}.log`);
    const server = spawnPostgres(data, dir, port, logPath, owner, tlsSettings);
    try {
      await waitUntilReady(server, data, logPath);
    } catch (err) {
      await terminate(server, { signal: 'SIGQUIT' });
      // Another process may have taken the port between freePort and bind.
      if (attempt < 3 && readTail(logPath).includes('Address already in use')) continue;
      releaseScratchDir(dir);
      throw err;
    }
    try {
      return await bootstrap(server, dir, port);
    } catch (err) {
      await terminate(server, { signal: 'SIGQUIT' });
      releaseScratchDir(dir);
      throw err;
    }
  }
}

function spawnPostgres(
  data: string,
  dir: string,
  port: number,
  logPath: string,
  owner: Owner | undefined,
  extra: readonly string[] = [],
): ChildProcess {
  const log = openSync(logPath, 'a');
  if (owner) chownSync(logPath, owner.uid, owner.gid);
  // The postmaster is spawned directly (not via pg_ctl, which daemonizes) so it
  // is our child: its pid is tracked and a crash is seen as an 'exit' event.
  const child = spawn(
    join(PG_BIN, 'postgres'),
    [
      '-D',
      data,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${dir}`, // private socket dir: no clash with other clusters
      // Durability is worthless for throwaway data and costs most of the runtime.
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=200',
      // Dynamic shared memory as files in the data dir instead of /dev/shm
      // segments: a SIGKILLed cluster then leaves nothing behind once the dir is removed.
      '-c',
      'dynamic_shared_memory_type=mmap',
      ...extra,
    ],
    { cwd: dir, detached: true, stdio: ['ignore', log, log], ...(owner ?? {}) },
  );
  closeSync(log);
  watchSpawnErrors(child);
  // A SIGKILLed postmaster cannot remove its small SysV shared-memory interlock
  // segment, and those pile up across runs. Its id is the 2nd field on line 7
  // of postmaster.pid; IPC_RMID frees it once the dying processes detach.
  const releaseShm = 'id=$(awk \'NR == 7 { print $2 }\' "$1") && [ -n "$id" ] && ipcrm -m "$id"';
  return track(child, {
    afterKill: { command: 'sh', args: ['-c', releaseShm, 'sh', join(data, 'postmaster.pid')] },
  });
}

// Same test pg_ctl -w uses: line 8 of postmaster.pid becomes "ready" once the
// server accepts connections.
async function waitUntilReady(server: ChildProcess, data: string, logPath: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const dead = deathReason(server);
    if (dead) throw new Error(`postgres ${dead} during startup. Log tail:\n${readTail(logPath)}`);
    try {
      const status = readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[7]?.trim();
      if (status === 'ready') return;
    } catch {
      // not written yet
    }
    await sleep(25);
  }
  throw new Error(`postgres not ready after 30 s. Log tail:\n${readTail(logPath)}`);
}

async function bootstrap(server: ChildProcess, dir: string, port: number): Promise<PgCluster> {
  const password = randomBytes(12).toString('hex');
  // Superuser over the private unix socket (trust); the app role only ever
  // connects over TCP with scram-sha-256, so a wrong password really fails.
  const admin = new pg.Client({ host: dir, port, user: 'postgres', database: 'postgres' });
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE ${APP_ROLE} LOGIN CREATEDB PASSWORD '${password}'`);
    await admin.query(`CREATE DATABASE ${APP_ROLE} OWNER ${APP_ROLE}`);
  } finally {
    await admin.end();
  }
  const url = `postgres://${APP_ROLE}:${password}@127.0.0.1:${port}/${APP_ROLE}`;
  let stopped: Promise<void> | undefined;
  return {
    url,
    port,
    createDatabase: (name) => createDatabaseOn(url, name),
    stop() {
      // SIGINT = "fast" shutdown: roll back open sessions, checkpoint, exit.
      stopped ??= terminate(server, { signal: 'SIGINT', graceMs: 10_000 }).then(() => releaseScratchDir(dir));
      return stopped;
    },
  };
}

function describeExecError(err: unknown): string {
  if (err instanceof Error && 'stderr' in err) return `${err.message}\n${String(err.stderr)}`;
  return err instanceof Error ? err.message : String(err);
}
