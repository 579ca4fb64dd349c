import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bundledMain, bundleKey, isExternal } from '../../bin/bundle.ts';
import { freePort } from '../rig/free-port.ts';
import { track } from '../rig/processes.ts';
import { tempDir } from '../support/temp-dir.ts';

const ROOT = join(import.meta.dirname, '..', '..');

/** A tiny install: one module that reads a file beside it through import.meta.url, as the views do. */
function tinyInstall(greeting: string): string {
  const root = tempDir('bundle-root-');
  mkdirSync(join(root, 'src', 'lib'), { recursive: true });
  writeFileSync(join(root, 'package-lock.json'), '{}');
  writeFileSync(join(root, 'src', 'lib', 'word.txt'), greeting);
  writeFileSync(
    join(root, 'src', 'lib', 'word.ts'),
    "import { readFileSync } from 'node:fs';\n" +
      "export const word: string = readFileSync(new URL('./word.txt', import.meta.url), 'utf8');\n",
  );
  writeFileSync(join(root, 'src', 'main.ts'), "import { word } from './lib/word.ts';\nconsole.log(word);\n");
  return root;
}

const run = (main: string) => execFileSync(process.execPath, [main], { encoding: 'utf8' }).trim();

describe('the service as one bundled module (decision 0035)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('builds once, reuses the build, builds again for changed code and drops the old one', () => {
    const root = tinyInstall('hello');
    const first = bundledMain(root, {});
    expect(first).toBeDefined();
    expect(run(first!)).toBe('hello'); // the file beside the source module, not beside the bundle
    const built = statSync(first!).mtimeMs;

    expect(bundledMain(root, {})).toBe(first);
    expect(statSync(first!).mtimeMs).toBe(built);

    writeFileSync(
      join(root, 'src', 'main.ts'),
      "import { word } from './lib/word.ts';\nconsole.log(word + '!');\n",
    );
    const second = bundledMain(root, {});
    expect(second).not.toBe(first);
    expect(run(second!)).toBe('hello!');
    expect(existsSync(first!)).toBe(false);
  });

  it('removes what a builder killed mid-way left behind, once it has built', () => {
    const root = tinyInstall('hello');
    const cache = join(root, 'node_modules', '.cache', 'inbox-triage-bundle');
    const place = createHash('sha256').update(root).digest('hex').slice(0, 8);
    const left = join(cache, `${place}-${bundleKey(root)}.4242.building`);
    mkdirSync(left, { recursive: true });
    writeFileSync(join(left, 'main.mjs'), 'half');
    const main = bundledMain(root, {});
    expect(run(main!)).toBe('hello');
    expect(existsSync(left)).toBe(false);
  });

  it("leaves the bundle of another install that shares its node_modules (a git worktree's link)", () => {
    const one = tinyInstall('one');
    const two = tinyInstall('two');
    const first = bundledMain(one, {});
    symlinkSync(join(one, 'node_modules'), join(two, 'node_modules'));
    const second = bundledMain(two, {});
    expect(run(second!)).toBe('two');
    expect(existsSync(first!)).toBe(true);
    expect(run(first!)).toBe('one');
  });

  it('is keyed by the code: a source change moves the key, a test file does not', () => {
    const root = tinyInstall('hello');
    const key = bundleKey(root);
    writeFileSync(join(root, 'src', 'main.test.ts'), 'export {};\n');
    expect(bundleKey(root)).toBe(key);
    writeFileSync(join(root, 'src', 'lib', 'word.txt'), 'hullo');
    expect(bundleKey(root)).not.toBe(key);
  });

  it('runs from source when asked to, or when the code does not build, and says why', () => {
    const root = tinyInstall('hello');
    expect(bundledMain(root, { INBOX_TRIAGE_FROM_SOURCE: '1' })).toBeUndefined();
    expect(existsSync(join(root, 'node_modules', '.cache', 'inbox-triage-bundle'))).toBe(false);

    writeFileSync(
      join(root, 'src', 'main.ts'),
      'import { word } from "./lib/missing.ts";\nconsole.log(word);\n',
    );
    const said: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      said.push(String(chunk));
      return true;
    });
    expect(bundledMain(root, {})).toBeUndefined();
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /^inbox-triage: running from source: the bundle could not be built \(.*missing\.ts.*\)\n$/,
    );
  });

  it('keeps native, worker-thread and first-use packages outside, and brings what bundled packages import', () => {
    const ours = join(ROOT, 'src', 'app.ts');
    for (const pkg of [
      'better-sqlite3',
      '@node-rs/argon2',
      'pino',
      'pg',
      'pg-boss',
      'imapflow',
      'mailauth/lib/dkim/verify.js',
    ])
      expect(isExternal(pkg, ours, ROOT)).toBe(true);
    for (const pkg of ['kysely', 'zod', 'hono/html', '@modelcontextprotocol/server', '../core/x.ts'])
      expect(isExternal(pkg, ours, ROOT)).toBe(false);
    expect(isExternal('node:fs', ours, ROOT)).toBe(true);
    expect(isExternal('tdigest', join(ROOT, 'node_modules', 'prom-client', 'index.js'), ROOT)).toBe(false);
    // a package whose real path is outside the install (node_modules linked from elsewhere, as in a git worktree)
    expect(isExternal('tdigest', '/elsewhere/node_modules/prom-client/index.js', ROOT)).toBe(false);
  });

  it("the real service, bundled, starts and reads the files beside its modules (the views' parts)", async () => {
    // The bundle the launcher runs (the suite's global set-up built it).
    const main = bundledMain(ROOT, {})!;
    const text = readFileSync(main, 'utf8');
    // Only rolldown's own `require` for CommonJS packages still resolves from the bundle's place (node_modules/.cache).
    expect(text.replaceAll('createRequire(import.meta.url)', '')).not.toContain('import.meta');
    const urls = [...text.matchAll(/"(file:\/\/\/[^"]+)"/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThan(2);
    for (const url of urls) expect(existsSync(fileURLToPath(url)), url).toBe(true);

    const port = await freePort();
    const child = spawn(process.execPath, [main, 'serve'], {
      env: { PATH: process.env['PATH'] ?? '', PORT: String(port), DATA_DIR: tempDir('bundle-data-') },
      stdio: 'ignore',
    });
    track(child);
    try {
      await expect
        .poll(
          async () => (await fetch(`http://127.0.0.1:${String(port)}/readyz`).catch(() => undefined))?.status,
        )
        .toBe(200);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
