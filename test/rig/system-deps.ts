import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

/** A binary the rig needs, by absolute path, and the Debian package that ships it. */
interface SystemPackage {
  bin: string;
  pkg: string;
}

/** Everything the real-server tests need from Debian 12. */
export const REQUIRED_SYSTEM_PACKAGES: readonly SystemPackage[] = [
  { bin: '/usr/sbin/dovecot', pkg: 'dovecot-imapd' },
  // Debian keeps initdb/pg_ctl off PATH, hence the versioned directory.
  { bin: '/usr/lib/postgresql/15/bin/initdb', pkg: 'postgresql' },
  { bin: '/usr/bin/chromium', pkg: 'chromium' },
  { bin: '/usr/bin/mbsync', pkg: 'isync' },
  // A process with its clock set apart (test/e2e/skewed-clocks.test.ts).
  { bin: '/usr/bin/faketime', pkg: 'faketime' },
  // A connection pooler in front of PostgreSQL in each pool mode (test/e2e/connection-pooler.test.ts).
  { bin: '/usr/sbin/pgbouncer', pkg: 'pgbouncer' },
];

/** libfaketime, preloaded into a process to move its clock (`FAKETIME=+1h`). */
export const FAKETIME_LIBRARY = `/usr/lib/${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu/faketime/libfaketime.so.1`;

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function missingPackages(pkgs: readonly SystemPackage[]): string[] {
  const missing = pkgs.filter((p) => !isExecutable(p.bin)).map((p) => p.pkg);
  return [...new Set(missing)];
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    // Output is inherited so a slow apt run is visible instead of looking hung.
    const child = spawn(cmd, args, {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${cmd} ${args.join(' ')} failed (${signal ?? `exit ${String(code)}`})`));
    });
  });
}

// apt-get update is slow and only needed once per process, however many times
// ensureSystemPackages is called.
let aptUpdated: Promise<void> | undefined;

/**
 * Makes sure each `bin` exists. As root, missing packages are installed with
 * apt-get; otherwise this throws a one-line error with the command to run.
 */
export async function ensureSystemPackages(pkgs: readonly SystemPackage[]): Promise<void> {
  const missing = missingPackages(pkgs);
  if (missing.length === 0) return;
  const list = missing.join(' ');
  if (process.getuid?.() !== 0) {
    throw new Error(
      `Missing system packages: ${list} — install them with: sudo apt-get install -y --no-install-recommends ${list}`,
    );
  }
  aptUpdated ??= run('apt-get', ['update']);
  await aptUpdated;
  await run('apt-get', ['install', '-y', '--no-install-recommends', ...missing]);
  const stillMissing = pkgs.filter((p) => !isExecutable(p.bin)).map((p) => p.bin);
  if (stillMissing.length > 0) {
    throw new Error(
      `apt-get installed ${list} but these binaries are still missing: ${stillMissing.join(' ')}`,
    );
  }
}
