import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../app.ts';
import { recordingLogger } from '../../../test/support/recording-logger.ts';
import { call, createTestApp } from '../../../test/support/test-app.ts';
import { agentOn, mcp2025Headers } from '../../../test/support/tool-caller.ts';

// Arguments nested twenty thousand deep parse as JSON; walking them recursively overflowed the stack (an
// `internal_error` answer and a stack trace in the log). They are bad arguments, in words, like any other shape.
/** A tools/call with the arguments as raw JSON text (too deep for JSON.stringify), answered in the 2025 era. */
async function rawCall(
  app: App,
  key: string,
  name: string,
  argumentsJson: string,
): Promise<Record<string, unknown>> {
  const res = await call(app, '/mcp', {
    method: 'POST',
    headers: mcp2025Headers(key),
    body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${argumentsJson}}}`,
  });
  const text = await res.text();
  const data = text.split('\n').find((l) => l.startsWith('data: ')) ?? 'data: {}';
  return (JSON.parse(data.slice(6)) as { result: { structuredContent: Record<string, unknown> } }).result
    .structuredContent;
}

describe('tool arguments nested far deeper than any schema', () => {
  let app: App;
  let lines: string[];
  let key: string;
  beforeAll(async () => {
    const recorded = recordingLogger();
    lines = recorded.lines;
    app = await createTestApp({ overrides: { log: recorded.log } });
    ({ key } = await agentOn(app));
  });
  afterAll(() => app.close());

  it('are invalid_arguments, and nothing is logged as an error', async () => {
    const deep = `${'['.repeat(20_000)}"x"${']'.repeat(20_000)}`;
    expect((await rawCall(app, key, 'list_messages', `{"inboxId":${deep}}`))['error']).toBe(
      'invalid_arguments',
    );
    const items = `{"action":"archive","items":${deep}}`;
    expect((await rawCall(app, key, 'act_on_messages', items))['error']).toBe('invalid_arguments');
    expect(lines.filter((l) => /"level":(50|60)|error/.test(l) && /RangeError|stack/.test(l))).toEqual([]);
  });
});
