import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../src/transports/mcp/tools/index.ts';

// The core speaks in codes and data (decision 0014): no MCP tool name and no MCP agreement flag anywhere in
// src/core, comments included. The words an agent reads are rendered in src/transports/mcp.
const CONTRACT_TOOLS = [
  'update_draft_from_card',
  'send_draft_from_card',
  'review_screened',
  'rescue_screened',
  'report_screened',
  'screen_junk',
  'confirm_screening',
  'show_screened',
  'show_inbox',
];
const FLAGS = ['humanApprovedInChat', 'humanConfirmedInChat', 'vipConfirmed'];
const WORDS = [...new Set([...ALL_TOOLS.map((t) => t.name), ...CONTRACT_TOOLS, ...FLAGS])];
const PATTERN = new RegExp(`\\b(${WORDS.join('|')})\\b`);

function offences(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...offences(path));
    else if (/\.ts$/.test(name) && !/\.(test|contract)\.ts$/.test(name)) {
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const m = PATTERN.exec(line);
          if (m !== null) found.push(`${path}:${String(i + 1)}: ${m[1] ?? ''}`);
        });
    }
  }
  return found;
}

describe('src/core names no MCP tool', () => {
  it('knows every tool of the registry', () => {
    expect(WORDS).toContain('list_inboxes');
    expect(WORDS.length).toBeGreaterThanOrEqual(ALL_TOOLS.length);
  });

  it('finds none in src/core', () => {
    expect(offences(join(import.meta.dirname, '..', '..', 'src', 'core'))).toEqual([]);
  });

  it('bites on a planted file, comment or string alike', () => {
    const dir = mkdtempSync(join(tmpdir(), 'core-words-'));
    try {
      writeFileSync(
        join(dir, 'probe.ts'),
        "// call sync_inbox first\nexport const hint = 'use create_draft';\n",
      );
      writeFileSync(join(dir, 'probe.test.ts'), "export const ok = 'sync_inbox';\n"); // tests may name tools
      expect(offences(dir)).toEqual([
        `${join(dir, 'probe.ts')}:1: sync_inbox`,
        `${join(dir, 'probe.ts')}:2: create_draft`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
