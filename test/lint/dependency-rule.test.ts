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

describe('the dependency rule (npm run lint)', () => {
  it('fails when core/ imports an adapter', async () => {
    const file = probe(
      'src/core/zz-lint-probe.ts',
      "export { openDatabase } from '../adapters/storage/index.ts';\n",
    );
    const r = await cruise(file);
    expect(r.code).not.toBe(0);
    expect(r.output).toContain('core-is-pure');
  });

  it('fails when core/ imports a driver', async () => {
    const file = probe('src/core/zz-lint-probe-2.ts', "export { Kysely } from 'kysely';\n");
    const r = await cruise(file);
    expect(r.code).not.toBe(0);
    expect(r.output).toContain('core-is-pure');
  });

  it('passes for core/ importing lib/', async () => {
    const file = probe('src/core/zz-lint-probe-3.ts', "export { newId } from '../lib/random.ts';\n");
    expect((await cruise(file)).code).toBe(0);
  });
});
