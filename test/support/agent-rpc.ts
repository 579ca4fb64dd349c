import { sql } from 'kysely';
import { afterEach } from 'vitest';
import type { App } from '../../src/app.ts';
import type { AccountId } from '../../src/core/accounts/account.ts';
import { createTestApp } from './test-app.ts';
import { mcp2025Headers } from './tool-caller.ts';

// What the tests of what an agent may do and where (decisions 0141, 0142) share: raw JSON-RPC on `/mcp`, for
// listing and for calling what a bearer may not see (the tool caller checks results against listed schemas), apps
// that close after each test, and a second inbox.

/** One JSON-RPC request on `/mcp` (2025-11-25 headers) with this bearer; its `result`. */
export async function rpc<T>(
  app: App,
  token: string,
  method: string,
  params: Record<string, unknown>,
): Promise<T> {
  const res = await app.fetch(
    new Request(new URL('/mcp', app.config.baseUrl), {
      method: 'POST',
      headers: mcp2025Headers(token),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    }),
  );
  const text = await res.text();
  return (JSON.parse(text.slice(text.indexOf('{'))) as { result: T }).result;
}

/** The tool names `tools/list` gives this bearer, sorted, on the fast path or (`sdk`) through the SDK's handler. */
export async function listedTools(app: App, token: string, o: { sdk?: boolean } = {}): Promise<string[]> {
  // A `cursor` is what the fast path leaves to the SDK.
  const r = await rpc<{ tools: { name: string }[] }>(
    app,
    token,
    'tools/list',
    o.sdk === true ? { cursor: 'x' } : {},
  );
  return r.tools.map((t) => t.name).sort();
}

/** A tools/call's structured result for a tool the bearer may not see. */
export const callUnlisted = (app: App, token: string, name: string, args: Record<string, unknown>) =>
  rpc<{ isError?: boolean; structuredContent: Record<string, unknown> }>(app, token, 'tools/call', {
    name,
    arguments: args,
  });

/**
 * Makes apps for one test and closes them after it. On SQLite verified credentials are believed for 5 seconds: a
 * change must still apply at once. On PostgreSQL the default, 0, is what lets a change on one node hold on the
 * others' next request.
 */
export function appsClosedAfterEach(): (pgUrl?: string) => Promise<App> {
  const apps: App[] = [];
  afterEach(async () => {
    for (const a of apps.splice(0)) await a.close();
  });
  return async (pgUrl) => {
    const app = await createTestApp({
      ...(pgUrl !== undefined && { pgUrl }),
      ...(pgUrl === undefined && { config: { credentialCacheSeconds: 5 } }),
    });
    apps.push(app);
    return app;
  };
}

/** A second inbox for the owner set up by `setUpOwner`, beside the demo one: "Work", IMAP, not yet connected. */
export async function addWorkInbox(app: App): Promise<string> {
  const row = await sql<{ id: string }>`SELECT id FROM accounts WHERE email = 'owner@example.test'`.execute(
    app.db.kysely,
  );
  const added = await app.services.tools.inboxes.add(row.rows[0]!.id as AccountId, {
    label: 'Work',
    provider: 'imap',
    email: 'me@work.example.test',
    imapHost: 'imap.work.example.test',
  });
  if (!added.ok) throw new Error(added.error.code);
  return added.value.inbox.id;
}
