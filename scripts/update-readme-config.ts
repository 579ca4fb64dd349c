// Regenerates the configuration table in README.md from src/config/config-schema.ts.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceConfigTable } from '../src/config/config-table.ts';

const path = join(import.meta.dirname, '..', 'README.md');
writeFileSync(path, replaceConfigTable(readFileSync(path, 'utf8')));
