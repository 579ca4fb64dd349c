import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from './config-schema.ts';
import { replaceConfigTable } from './config-table.ts';

describe('README configuration table', () => {
  it('matches the config schema (run `npm run docs:config` after changing a setting)', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    expect(replaceConfigTable(readme)).toBe(readme);
    for (const s of Object.values(SETTINGS)) expect(readme).toContain(`\`${s.env}\``);
  });
});
