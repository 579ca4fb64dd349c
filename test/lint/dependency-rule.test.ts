import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const depcruise = join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');
const run = promisify(execFile);
const probes: string[] = [];

afterEach(() => {
  for (const p of probes.splice(0)) rmSync(p, { force: true });
});

async function cruise(file: string): Promise<{ code: number; output: string }> {
  try {
    const r = await run(process.execPath, [depcruise, file, '--config', '.dependency-cruiser.cjs'], {
      cwd: root,
    });
    return { code: 0, output: r.stdout };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, output: x.stdout + x.stderr };
  }
}

function probe(relPath: string, source: string): string {
  const path = join(root, relPath);
  writeFileSync(path, source);
  probes.push(path);
  return relPath;
}

// Each rule of .dependency-cruiser.cjs, shown biting on a planted import (and the allowed cases passing).
const FAILS: [string, string, string, string][] = [
  [
    'core/ importing an adapter',
    'src/core/zz-probe.ts',
    "export { openDatabase } from '../adapters/storage/index.ts';",
    'core-is-pure',
  ],
  ['core/ importing a driver', 'src/core/zz-probe.ts', "export { Kysely } from 'kysely';", 'core-is-pure'],
  [
    'lib/ importing core/',
    'src/lib/zz-probe.ts',
    "export { parseInboxId } from '../core/inboxes/inbox.ts';",
    'lib-is-leaf',
  ],
  [
    'oauth/ importing a driver',
    'src/oauth/zz-probe.ts',
    "export { Kysely } from 'kysely';",
    'oauth-core-is-pure',
  ],
  [
    'oauth/ importing the composition root',
    'src/oauth/zz-probe.ts',
    "export type { Services } from '../compose/services.ts';",
    'oauth-core-is-pure',
  ],
  [
    'a transport importing an adapter',
    'src/transports/mcp/zz-probe.ts',
    "export { openDatabase } from '../../adapters/storage/index.ts';",
    'adapters-only-from-composition',
  ],
  [
    'jobs/ importing an adapter',
    'src/jobs/zz-probe.ts',
    "export { InProcessQueue } from '../adapters/jobs/in-process-queue.ts';",
    'adapters-only-from-composition',
  ],
  [
    'a transport importing compose/',
    'src/transports/web/zz-probe.ts',
    "export type { Services } from '../../compose/services.ts';",
    'compose-only-from-app',
  ],
  [
    'an adapter importing a transport',
    'src/adapters/zz-probe.ts',
    "export { clamp } from '../transports/mcp/tool-helpers.ts';",
    'adapters-not-transports',
  ],
  [
    'a transport importing a driver',
    'src/transports/rest/zz-probe.ts',
    "export { ImapFlow } from 'imapflow';",
    'transports-use-core-not-drivers',
  ],
  [
    'src/ importing test code',
    'src/lib/zz-probe.ts',
    "export { freePort } from '../../test/rig/free-port.ts';",
    'no-test-code-in-src',
  ],
];

const PASSES: [string, string, string][] = [
  ['core/ importing lib/', 'src/core/zz-probe.ts', "export { newId } from '../lib/random.ts';"],
  [
    'the CLI opening the database',
    'src/transports/cli/zz-probe.ts',
    "export { openDatabase } from '../../adapters/storage/index.ts';",
  ],
  [
    'compose/ choosing an adapter',
    'src/compose/zz-probe.ts',
    "export { openDatabase } from '../adapters/storage/index.ts';",
  ],
];

describe('the dependency rule (npm run lint)', () => {
  it.each(FAILS)('fails for %s', async (_name, path, source, rule) => {
    const r = await cruise(probe(path, `${source}\n`));
    expect(r.code, r.output).not.toBe(0);
    expect(r.output).toContain(rule);
  });

  it.each(PASSES)('passes for %s', async (_name, path, source) => {
    const r = await cruise(probe(path, `${source}\n`));
    expect(r.code, r.output).toBe(0);
  });
});
