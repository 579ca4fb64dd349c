// The service as one file (decision 0035). Node resolves, reads and links each ES module on its own: an idle start
// loaded ~900 of them (our ~300, Kysely's ~260, zod's ~100) and spent most of its first second doing so, and their
// doc comments stayed in memory as source text. Put together once by rolldown — the code as written, types and
// comments stripped, names kept — the same service is ready in ~0.6 s instead of ~1.1 s and sits ~15 MB lower.
//
// The bundle is built on the first start after an install or a change of the code, under the install's own
// node_modules/.cache (as the compile cache, decision 0027), keyed by a hash of everything that goes into it: a
// changed file means a new bundle, never a stale one. Without rolldown (an install without dev dependencies), or
// with INBOX_TRIAGE_FROM_SOURCE=1 (stack traces that point at the source files), the service runs from src/ as before.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'rolldown';

/**
 * Packages put into the bundle: plain JavaScript that every start loads. Every other package stays a package that
 * Node loads itself: native code (better-sqlite3, argon2), code that starts worker threads from its own files
 * (pino), and what a deployment loads only on first use (decision 0027: pg, pg-boss, imapflow, nodemailer, mailauth,
 * the Gmail client) — bundling those would load them at every start.
 */
export const BUNDLED = new Set([
  '@hono/node-server',
  '@modelcontextprotocol/core',
  '@modelcontextprotocol/node',
  '@modelcontextprotocol/server',
  // rolldown's own helpers, which it adds where a template is kept raw (a tagged template holding `</script>`)
  '@oxc-project/runtime',
  'hono',
  'kysely',
  'postal-mime',
  'prom-client',
  'rate-limiter-flexible',
  'zod',
]);

const BUILTIN = new Set(builtinModules);

/** `@scope/name/sub/path.js` → `@scope/name`; `name/sub` → `name`; undefined for a relative or absolute path. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('file:'))
    return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Whether an import stays outside the bundle: Node's own modules, and packages our code imports that are not BUNDLED. */
export function isExternal(specifier: string, importer: string | undefined, root: string): boolean {
  if (specifier.startsWith('node:') || BUILTIN.has(specifier)) return true;
  const pkg = packageOf(specifier);
  if (pkg === undefined) return false;
  // What a bundled package imports comes along with it (prom-client's own dependencies, say). Ours is what lies
  // under src/ (a package's real path may be elsewhere: a linked node_modules).
  const fromOurCode = importer === undefined || !relative(join(root, 'src'), importer).startsWith('..');
  return fromOurCode && !BUNDLED.has(pkg);
}

/** A hash of what the bundle is made of: the install's place, this recipe, the Node version, the locked dependencies and src/. */
export function bundleKey(root: string): string {
  const h = createHash('sha256');
  h.update(process.version);
  h.update(root); // the bundle names its modules' files by absolute path (import.meta, below)
  for (const path of [
    join(root, 'bin', 'bundle.ts'),
    join(root, 'package-lock.json'),
    ...readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && !e.name.endsWith('.test.ts'))
      .map((e) => join(e.parentPath, e.name))
      .sort(),
  ]) {
    h.update(`\0${relative(root, path)}\0`);
    h.update(existsSync(path) ? readFileSync(path) : '');
  }
  return h.digest('hex').slice(0, 24);
}

/**
 * Our modules find files beside them (the views' HTML parts, the WAL worker) and resolve packages from where they
 * are, through `import.meta`: in the bundle it keeps naming the module's own file, not the bundle's.
 */
function importMetaOfTheSource(): Plugin {
  return {
    name: 'import-meta-of-the-source',
    transform: {
      filter: { code: 'import.meta' },
      handler(code: string, id: string) {
        if (id.startsWith('\0')) return null; // rolldown's own modules: the bundle's place is theirs
        const url = pathToFileURL(id).href;
        return code
          .replaceAll('import.meta.url', JSON.stringify(url))
          .replaceAll('import.meta.dirname', JSON.stringify(join(id, '..')))
          .replaceAll('import.meta.filename', JSON.stringify(id));
      },
    },
  };
}

/** Builds the bundle into `dir` (one ES module, `main.mjs`). */
async function buildBundle(root: string, dir: string): Promise<void> {
  const { build } = await import('rolldown');
  await build({
    input: join(root, 'src', 'main.ts'),
    platform: 'node',
    external: (specifier, importer) => isExternal(specifier, importer, root),
    plugins: [importMetaOfTheSource()],
    logLevel: 'warn',
    output: {
      dir,
      entryFileNames: 'main.mjs',
      format: 'esm',
      codeSplitting: false,
      comments: false,
      minify: false,
    },
  });
}

/**
 * The bundle's entry for this code, built first if there is none; undefined to run from source (asked for, or the
 * bundle could not be built — said once on stderr). Several processes starting at once on one install each build
 * into their own directory and rename it into place; the first rename wins, the others use it.
 */
export function bundledMain(
  root: string,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (env['INBOX_TRIAGE_FROM_SOURCE'] === '1') return undefined;
  const cache = join(root, 'node_modules', '.cache', 'inbox-triage-bundle');
  // Installs that share one node_modules (git worktrees with a link to it) keep each other's bundles: each removes
  // only its own older ones, named by a hash of its place.
  const place = createHash('sha256').update(root).digest('hex').slice(0, 8);
  const key = `${place}-${bundleKey(root)}`;
  const dir = join(cache, key);
  const main = join(dir, 'main.mjs');
  if (existsSync(main)) return main;
  const building = `${dir}.${String(process.pid)}.building`;
  try {
    mkdirSync(cache, { recursive: true });
    // In a process of its own: rolldown's native half would otherwise stay in the service's memory for good.
    const child = spawnSync(process.execPath, [import.meta.filename, root, building], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (child.status !== 0) throw new Error(child.stderr.trim() || `rolldown exited ${String(child.status)}`);
    try {
      renameSync(building, dir);
    } catch (err) {
      rmSync(building, { recursive: true, force: true });
      if (!existsSync(main)) throw err;
    }
    // Older bundles of this install, and what builders killed mid-way left (a builder still at work finds this
    // bundle in place when its own directory is gone).
    for (const old of readdirSync(cache)) {
      if (old.startsWith(`${place}-`) && old !== key)
        rmSync(join(cache, old), { recursive: true, force: true });
    }
    return main;
  } catch (err) {
    rmSync(building, { recursive: true, force: true });
    if (existsSync(main)) return main; // another process put the same bundle in place meanwhile
    const why = err instanceof Error ? err.message : String(err);
    process.stderr.write(`inbox-triage: running from source: the bundle could not be built (${why})\n`);
    return undefined;
  }
}

// `node bin/bundle.ts <root> <dir>`: builds the bundle of the install at <root> into <dir> (for bundledMain).
if (import.meta.main) {
  const [root, dir] = process.argv.slice(2);
  if (root === undefined || dir === undefined)
    throw new Error('usage: node bin/bundle.ts <root> <directory>');
  try {
    await buildBundle(root, dir);
  } catch (err) {
    // One line for the parent to pass on; ANSI colours and rolldown's layout taken out.
    const text = err instanceof Error ? err.message : String(err);
    process.stderr.write(
      text
        .replace(/\u001b\[[0-9;]*m/g, '')
        .replace(/\s+/g, ' ')
        .trim()
        .slice(0, 400),
    );
    process.exitCode = 1;
  }
}
