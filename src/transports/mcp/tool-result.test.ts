import { describe, expect, it } from 'vitest';
import { errorResult, resultMembersJson, successResult, type CallToolResultWire } from './tool-result.ts';

/** What `JSON.stringify` makes of the result's members: the hand-written JSON must be exactly this. */
const stringified = (r: CallToolResultWire) => JSON.stringify(r).slice(1, -1);

describe('tool results', () => {
  it('carry the payload as JSON text and as structuredContent', () => {
    const payload = { inboxes: [{ id: 'inbox_1', label: 'Work "main"\n' }], sayToHuman: '1 inbox.' };
    const r = successResult(payload, 100_000);
    expect(r.content).toEqual([{ type: 'text', text: JSON.stringify(payload) }]);
    expect(r.structuredContent).toBe(payload);
    expect(r.isError).toBeUndefined();
    expect(resultMembersJson(r).join('')).toBe(stringified(r));
  });

  it('cut a result over the limit, say so, and keep text and structuredContent the same', () => {
    const payload = {
      messages: Array.from({ length: 400 }, (_, i) => ({ id: `m${String(i)}`, subject: 's'.repeat(40) })),
      sayToHuman: 'Many messages.',
    };
    const r = successResult(payload, 5_000);
    const text = r.content[0]?.text ?? '';
    expect(text.length).toBeLessThanOrEqual(5_000);
    expect(JSON.parse(text)).toEqual(r.structuredContent);
    expect(r.structuredContent['truncated']).toMatchObject({ fields: ['messages'] });
    expect((r.structuredContent['messages'] as unknown[]).length).toBeLessThan(400);
    expect(payload.messages).toHaveLength(400); // the tool's own object is not cut in place
    expect(resultMembersJson(r).join('')).toBe(stringified(r));
  });

  it('mark errors, and write them the same way', () => {
    const r = errorResult({ error: 'inbox_not_found', message: 'No inbox with this id.' });
    expect(r.isError).toBe(true);
    expect(JSON.parse(r.content[0]?.text ?? '')).toEqual({
      error: 'inbox_not_found',
      message: 'No inbox with this id.',
    });
    expect(resultMembersJson(r).join('')).toBe(stringified(r));
  });

  it('write a result built elsewhere from its own members', () => {
    const r: CallToolResultWire = {
      content: [{ type: 'text', text: 'not the JSON of structuredContent' }],
      structuredContent: { a: 1 },
    };
    expect(resultMembersJson(r).join('')).toBe(stringified(r));
  });
});
