import { afterEach, describe, expect, it } from 'vitest';
import type { App } from '../../../app.ts';
import { createTestApp } from '../../../../test/support/test-app.ts';
import { setUpOwner } from '../../../../test/support/web-client.ts';

// Inboxes → Add an inbox with a provider's sign-in that cannot start: not set up on this server (a forged choice: the
// form offers only what is set up), or the provider out of reach. Said on the page in words; the inbox stays, to
// connect later. The sign-in itself, through Chromium and Google's emulator: test/gmail/gmail-console.test.ts.
describe('adding an inbox whose sign-in cannot start', () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });
  const add = { label: 'Work', email: 'pat@acme.test', imapHost: '', imapPort: '', imapUser: '' };

  it('a sign-in not set up here is not offered, and a forged choice says what the operator must do', async () => {
    app = await createTestApp();
    const web = await setUpOwner(app);
    await web.get('/inboxes');
    expect(web.lastHtml).not.toContain('<option value="microsoft"');
    expect(web.lastHtml).not.toContain('<option value="google"');
    const res = await web.post('/inboxes/add', { ...add, provider: 'microsoft' });
    expect(res.status).toBe(400);
    expect(web.lastHtml).toContain('Microsoft sign-in is not configured on this server');
    expect(web.lastHtml).toContain('the operator sets MICROSOFT_CLIENT_ID and MICROSOFT_CLIENT_SECRET');
  });

  it('a provider whose sign-in is out of reach: 503, in words', async () => {
    app = await createTestApp({
      config: {
        google: {
          clientId: 'c.apps.googleusercontent.test',
          issuer: 'http://127.0.0.1:9',
          gmailApiUrl: 'http://127.0.0.1:9',
          pollSeconds: 30,
        },
      },
      googleClientSecret: 'secret',
    });
    const web = await setUpOwner(app);
    await web.get('/inboxes');
    expect(web.lastHtml).toContain('<option value="google"');
    // Its sign-in pages may be a form's target: the page's form-action says so.
    const page = await web.get('/inboxes');
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' http://127.0.0.1:9;");
    const res = await web.post('/inboxes/add', { ...add, provider: 'google' });
    expect(res.status).toBe(503);
    expect(web.lastHtml).toContain('Google sign-in could not be reached; try again in a few minutes.');
  });
});
