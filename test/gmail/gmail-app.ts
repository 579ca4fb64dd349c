import { gmail, type gmail_v1 } from '@googleapis/gmail';
import type { Browser } from 'playwright-core';
import type { App } from '../../src/app.ts';
import { silentLogger } from '../../src/lib/logger.ts';
import { recordingLogger } from '../support/recording-logger.ts';
import { listen } from '../../src/transports/http/serve.ts';
import { freePort } from '../rig/free-port.ts';
import { startGoogleEmulator, type GoogleEmulator } from '../rig/gmail-emulator.ts';
import { buildMessage } from '../rig/message-factory.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolOk, type toolCaller } from '../support/tool-caller.ts';

export const CLIENT = { id: 'triage-test.apps.googleusercontent.com', secret: 'test-client-secret-123' };
/** Another Gmail client's requests (the emulator maps any bearer it did not issue to its one user). */
export const OTHER = { headers: { authorization: 'Bearer another-client' } };

export interface GmailApp {
  readonly google: GoogleEmulator;
  /** The Gmail API as another client sees the mailbox. */
  readonly api: gmail_v1.Gmail;
  readonly app: App;
  readonly call: ReturnType<typeof toolCaller>;
  /** Every line the service logged, serialised. */
  readonly logged: string[];
  /** Adds a google inbox through the tools and signs in through Chromium; returns its id. */
  connect(browser: Browser): Promise<string>;
  /** Delivers a message to the mailbox as Gmail would (another client's insert). */
  deliver(n: number, subject: string, labelIds?: string[]): Promise<string>;
  /** The Gmail id of the message with this Message-ID header. */
  idOf(messageIdHeader: string): Promise<string>;
  close(): Promise<void>;
}

/** The service on a real port (Google redirects the browser to it) with Gmail configured against the emulator. */
export async function startGmailApp(opts: { pollSeconds?: number; pgUrl?: string } = {}): Promise<GmailApp> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${String(port)}`;
  const google = await startGoogleEmulator({
    client: { ...CLIENT, redirectUri: `${baseUrl}/connect/google/callback` },
  });
  const api = gmail({ version: 'v1', rootUrl: `${google.url}/` });
  const { log, lines: logged } = recordingLogger();
  const app = await createTestApp({
    config: {
      baseUrl,
      mcpAllowedOrigins: [baseUrl],
      google: {
        clientId: CLIENT.id,
        issuer: google.url,
        gmailApiUrl: google.url,
        pollSeconds: opts.pollSeconds ?? 30,
      },
    },
    googleClientSecret: CLIENT.secret,
    ...(opts.pgUrl !== undefined && { pgUrl: opts.pgUrl }),
    overrides: { log },
  });
  const server = await listen(app.fetch, { host: '127.0.0.1', port, log: silentLogger, lane: app.lane });
  const { call } = await agentOn(app);
  const idOf = async (messageIdHeader: string) => {
    const r = await api.users.messages.list(
      { userId: 'me', q: `rfc822msgid:${messageIdHeader.slice(1, -1)}`, includeSpamTrash: true },
      OTHER,
    );
    return r.data.messages?.[0]?.id ?? '';
  };
  return {
    google,
    api,
    app,
    call,
    logged,
    idOf,
    async connect(browser) {
      const added = expectToolOk(
        await call('add_inbox', { label: 'Gmail', provider: 'google', email: google.user }),
      );
      const inboxId = (added['inbox'] as { id: string }).id;
      const link = expectToolOk(await call('start_google_oauth', { inboxId }));
      const page = await (await browser.newContext()).newPage();
      try {
        await page.goto(link['url'] as string);
        await page.getByRole('button', { name: new RegExp(google.user.replaceAll('.', '\\.')) }).click();
        await page.waitForURL(/\/connect\/google\/callback/);
        await page.getByRole('heading', { name: `${google.user} is connected` }).waitFor();
      } finally {
        await page.context().close();
      }
      return inboxId;
    },
    async deliver(n, subject, labelIds = ['INBOX', 'UNREAD']) {
      const messageId = `<gmail-app-${String(n)}-${Date.now().toString(36)}@example.org>`;
      const raw = buildMessage({
        from: { name: 'Ada Lovelace', address: 'ada@example.org' },
        to: [{ name: 'Pat', address: google.user }],
        subject,
        date: new Date(Date.UTC(2026, 10, 20, 9) + n * 60_000),
        messageId,
        text: `Body of ${subject}.\n`,
      });
      await api.users.messages.insert(
        {
          userId: 'me',
          internalDateSource: 'dateHeader',
          requestBody: { raw: raw.toString('base64url'), labelIds },
        },
        OTHER,
      );
      return messageId;
    },
    async close() {
      await server.close(1000);
      await app.close();
      await google.close();
    },
  };
}
