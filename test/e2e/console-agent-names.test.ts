import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { oauthAccessToken } from '../support/oauth-code.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolOk, toolCaller } from '../support/tool-caller.ts';
import type { WebClient } from '../support/web-client.ts';

// Waiting for you and Activity named an OAuth agent by its client id ("asked by agent itc_…", "Agent itc_…"), which
// the person cannot tell apart from any other, Activity's agent filter offered API keys only, and a key or a sign-in
// the person had revoked meanwhile looked like one still in use — when the person disconnected an agent they no
// longer trust, its sends still waited for a click like any other. Now: the agent by the name Connected agents
// shows, and "(revoked since)" / "(disconnected since)".
describe('the console names each agent, and says when it was revoked or disconnected since', () => {
  let app: App;
  let web: WebClient;
  let byKey: ReturnType<typeof toolCaller>;
  let byOAuth: ReturnType<typeof toolCaller>;
  let inboxId: string;

  beforeAll(async () => {
    app = await createTestApp();
    let key: string;
    ({ web, key } = await agentOn(app));
    byKey = toolCaller(app, key);
    byOAuth = toolCaller(app, await oauthAccessToken(app, web, 'Desk Assistant'));
    inboxId = (expectToolOk(await byKey('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
    expectToolOk(await byKey('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
    for (const [caller, subject] of [
      [byKey, 'Asked with a key'],
      [byOAuth, 'Asked by a signed-in agent'],
    ] as const)
      expectToolOk(
        await caller('create_draft', { inboxId, to: 'sam@example.test', subject, text: 'Hello.' }),
      );
  });
  afterAll(() => app.close());

  /** The "asked by …" of the card whose subject this is. */
  async function askedBy(subject: string): Promise<string> {
    await web.get('/waiting');
    const card = web.lastHtml.split('<section').find((s) => s.includes(subject)) ?? '';
    return /asked by ([\s\S]*?) at /.exec(card)?.[1]?.replace(/\s+/g, ' ') ?? '';
  }

  /** Activity's "who" cells, newest first, and its agent filter's choices. */
  async function activity(): Promise<{ rows: string[]; choices: string[] }> {
    await web.get('/settings/activity');
    const text = (s: string) =>
      s
        .replace(/<[^>]*>/g, '')
        .replace(/\s+/g, ' ')
        .trim();
    const select = /<select name="agent">([\s\S]*?)<\/select>/.exec(web.lastHtml)?.[1] ?? '';
    return {
      rows: [...web.lastHtml.matchAll(/<td>((?:API key|Agent|You|An )[^<]*)<\/td>/g)].map((m) => text(m[1]!)),
      choices: [...select.matchAll(/<option[^>]*>([\s\S]*?)<\/option>/g)].map((m) => text(m[1]!)),
    };
  }

  it('names the key and the signed-in agent', async () => {
    expect(await askedBy('Asked with a key')).toBe('API key “agent”');
    expect(await askedBy('Asked by a signed-in agent')).toBe('agent “Desk Assistant”');
    const { rows, choices } = await activity();
    expect(rows).toContain('Agent “Desk Assistant”');
    expect(rows).toContain('API key “agent”');
    expect(choices).toEqual(['All agents', 'API key “agent”', 'agent “Desk Assistant”']);
    // The signed-in agent's choice shows its calls alone.
    const grantId = /<option value="([^"]+)"\s*>agent “Desk Assistant”/.exec(web.lastHtml)?.[1];
    expect(grantId).toMatch(/^grant_/);
    await web.get(`/settings/activity?agent=${grantId!}`);
    const cells = [...web.lastHtml.matchAll(/<td>((?:API key|Agent|You)[^<]*)<\/td>/g)].map((m) =>
      m[1]!.trim(),
    );
    expect(cells.length).toBeGreaterThan(0);
    expect(new Set(cells)).toEqual(new Set(['Agent “Desk Assistant”']));
  });

  it('says when the key was revoked and the agent disconnected since', async () => {
    await web.get('/settings/agents');
    await web.post('/settings/agents/disconnect-all', {});
    expect(await askedBy('Asked with a key')).toBe('API key “agent” (revoked since)');
    expect(await askedBy('Asked by a signed-in agent')).toBe('agent “Desk Assistant” (disconnected since)');
    const { rows, choices } = await activity();
    expect(rows).toContain('Agent “Desk Assistant” (disconnected since)');
    expect(rows).toContain('API key “agent” (revoked since)');
    expect(choices).toEqual(['All agents', 'API key “agent” (revoked since)']);
  });
});
