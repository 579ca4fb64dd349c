import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../mcp/tools/index.ts';
import { TOOL_WORDS } from './activity-page.ts';

describe('Activity words', () => {
  it('every tool has words for the person', () => {
    expect(ALL_TOOLS.map((t) => t.name).filter((n) => TOOL_WORDS[n] === undefined)).toEqual([]);
  });
});
