import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../app.ts';
import { agentOn, expectToolOk, type toolCaller } from '../../../test/support/tool-caller.ts';
import { bearer, call, createTestApp } from '../../../test/support/test-app.ts';

const TOKEN = 'metrics-token-0123456789abcdef';

/** The value of one sample line (`name{labels} value`), or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics for operators', () => {
  let app: App;
  let agent: ReturnType<typeof toolCaller>;
  let inboxId: string;
  const scrape = async () => {
    const res = await call(app, '/metrics', bearer(TOKEN));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text();
  };

  beforeAll(async () => {
    app = await createTestApp({ config: { syncWindow: 40 }, metricsToken: TOKEN });
    ({ call: agent } = await agentOn(app));
    const list = expectToolOk(await agent('list_inboxes'));
    inboxId = (list['inboxes'] as { id: string; isDemo: boolean }[]).find((i) => i.isDemo)!.id;
  });
  afterAll(async () => {
    await app.close();
  });

  it('refuses a scrape without the token, or with a wrong one', async () => {
    const none = await call(app, '/metrics');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect((await call(app, '/metrics', bearer(`${TOKEN}x`))).status).toBe(401);
    expect((await call(app, '/metrics', bearer('itk_not_this'))).status).toBe(401);
  });

  it('counts requests by route pattern, tool calls by outcome, syncs by provider; gauges read the inboxes', async () => {
    const before = await scrape();
    const drafts =
      'inbox_triage_http_requests_total{route="/api/inboxes/:id/draft",method="POST",status="401"}';
    const okCalls = 'inbox_triage_tool_calls_total{tool="list_messages",outcome="ok"}';
    const badCalls = 'inbox_triage_tool_calls_total{tool="get_message",outcome="message_not_found"}';
    const syncs = 'inbox_triage_syncs_total{provider="google",outcome="ok"}';
    await call(app, `/api/inboxes/${inboxId}/draft`, { method: 'POST' });
    await call(app, `/api/inboxes/${inboxId}/draft`, { method: 'POST' });
    await call(app, '/no/such/route');
    expectToolOk(await agent('sync_inbox', { inboxId }));
    expectToolOk(await agent('list_messages', { inboxId, limit: 5 }));
    await agent('get_message', { inboxId, messageId: 'msg_00000000000000000000' });
    const after = await scrape();
    expect((sample(after, drafts) ?? 0) - (sample(before, drafts) ?? 0)).toBe(2);
    expect((sample(after, okCalls) ?? 0) - (sample(before, okCalls) ?? 0)).toBe(1);
    expect((sample(after, badCalls) ?? 0) - (sample(before, badCalls) ?? 0)).toBe(1);
    expect((sample(after, syncs) ?? 0) - (sample(before, syncs) ?? 0)).toBe(1);
    expect(sample(after, 'inbox_triage_sync_messages_total{provider="google"}')).toBeGreaterThanOrEqual(40);
    expect(
      sample(after, 'inbox_triage_http_requests_total{route="/mcp",method="POST",status="200"}'),
    ).toBeGreaterThan(0);
    expect(
      sample(after, 'inbox_triage_http_requests_total{route="(unmatched)",method="GET",status="404"}'),
    ).toBe(1);
    expect(after).toContain(
      'inbox_triage_tool_call_duration_seconds_bucket{le="0.005",tool="list_messages"}',
    );
    expect(sample(after, 'inbox_triage_inboxes{provider="google",state="connected"}')).toBe(1);
    expect(sample(after, 'inbox_triage_job_queue_depth')).toBeGreaterThanOrEqual(0);
    expect(sample(after, 'inbox_triage_imap_connections')).toBe(0);
    expect(after).toContain('inbox_triage_process_resident_memory_bytes');
    // Labels carry route patterns, never ids from a path.
    expect(after).not.toContain(inboxId);
  });

  it('is off without METRICS_TOKEN', async () => {
    const plain = await createTestApp();
    try {
      expect((await call(plain, '/metrics')).status).toBe(404);
      expect((await call(plain, '/metrics', bearer(TOKEN))).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
