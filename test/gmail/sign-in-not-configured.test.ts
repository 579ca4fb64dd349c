import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolError, type toolCaller } from '../support/tool-caller.ts';

// Without an OAuth client the tool says what the operator must set; the tool surface stays the same.
describe('provider sign-in on a server without Google or Microsoft configured', () => {
  let app: App;
  let call: ReturnType<typeof toolCaller>;
  beforeAll(async () => {
    app = await createTestApp();
    ({ call } = await agentOn(app));
  });
  afterAll(() => app.close());

  it('answers not_supported naming GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET', async () => {
    const added = await call('add_inbox', { label: 'Gmail', provider: 'google', email: 'pat@gmail.test' });
    const inboxId = (added.body['inbox'] as { id: string }).id;
    const r = expectToolError(await call('start_google_oauth', { inboxId }), 'not_supported');
    expect(String(r['message'])).toContain('GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET');
    expect(String(r['sayToHuman'])).toMatch(/GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET/);
    expectToolError(await call('sync_inbox', { inboxId }), 'not_connected');
  });

  it('keeps the contract arguments (inboxId only) and points other providers to their own connection', async () => {
    const imapInbox = await call('add_inbox', {
      label: 'Work',
      provider: 'imap',
      email: 'pat@example.org',
      imapHost: 'imap.example.org',
    });
    const id = (imapInbox.body['inbox'] as { id: string }).id;
    expect(
      String(expectToolError(await call('start_google_oauth', { inboxId: id }), 'not_supported')['message']),
    ).toMatch(/password link/);
    expectToolError(await call('start_google_oauth', { inboxId: id, extra: 1 }), 'invalid_arguments');
  });

  it('start_microsoft_oauth answers not_supported naming MICROSOFT_CLIENT_ID and MICROSOFT_CLIENT_SECRET', async () => {
    const added = await call('add_inbox', {
      label: 'Work',
      provider: 'microsoft',
      email: 'pat@contoso.test',
    });
    const inboxId = (added.body['inbox'] as { id: string }).id;
    const r = expectToolError(await call('start_microsoft_oauth', { inboxId }), 'not_supported');
    expect(String(r['message'])).toContain('MICROSOFT_CLIENT_ID and MICROSOFT_CLIENT_SECRET');
    expect(String(r['sayToHuman'])).toMatch(/MICROSOFT_CLIENT_ID and MICROSOFT_CLIENT_SECRET/);
    expect(
      String(expectToolError(await call('start_google_oauth', { inboxId }), 'not_supported')['message']),
    ).toMatch(/signs in with Microsoft/);
  });
});
