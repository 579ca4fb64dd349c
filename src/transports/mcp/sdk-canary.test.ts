import { readFileSync } from 'node:fs';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';

// A canary for what the fast path (fast-path.ts, envelope.ts) mirrors of the MCP SDK by hand: the answer shapes
// (compared in full by fast-path.test.ts for every case it takes), the envelope keys, and the protocol versions.
// The SDK packages are pinned exactly; an upgrade that moves any of these fails here first, and the fast path is
// re-checked against the new SDK before the upgrade lands.
const root = new URL('../../../', import.meta.url);
const json = (path: string) =>
  JSON.parse(readFileSync(new URL(path, root), 'utf8')) as Record<string, unknown>;

describe('MCP SDK canary', () => {
  it.each(['@modelcontextprotocol/server', '@modelcontextprotocol/node'])(
    '%s is pinned exactly and installed as pinned',
    (name) => {
      const pinned = (json('package.json')['dependencies'] as Record<string, string>)[name];
      expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
      expect(json(`node_modules/${name}/package.json`)['version']).toBe(pinned);
    },
  );

  it('names the 2026-07-28 envelope keys the fast path recognises', () => {
    expect([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]).toEqual([
      'io.modelcontextprotocol/protocolVersion',
      'io.modelcontextprotocol/clientInfo',
      'io.modelcontextprotocol/clientCapabilities',
    ]);
  });

  it('supports the 2025 initialize-era versions the fast path answers in that era', () => {
    // fast-path.ts takes legacy requests for these versions only; a version the SDK drops must leave the fast path too.
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(expect.arrayContaining(['2025-11-25', '2025-06-18']));
    expect(SUPPORTED_PROTOCOL_VERSIONS).not.toContain('2026-07-28');
  });
});
