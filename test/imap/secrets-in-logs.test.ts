import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPinoLogger } from '../../src/adapters/logging/pino-logger.ts';
import { buildMessage } from '../rig/index.ts';
import { approvedCode, codeGrant } from '../support/oauth-code.ts';
import { sendingInbox, type SendingInbox } from '../support/sending-inbox.ts';
import { expectToolOk } from '../support/tool-caller.ts';
import { invitedAccount, OWNER, WebClient } from '../support/web-client.ts';

// Decision 0115 and the ground rule "no secret in a log line": every secret a session handles, collected as it goes,
// and looked for in the service's log at its most talkative level (the production logger, redaction and all).

const IMAP_PASSWORD = 'alice-imap-passphrase-7';
const UNSUBSCRIBE_TOKEN = 'u7k2m9q4x8w1';

describe('the log at debug level, after a session that handles every kind of secret', () => {
  let s: SendingInbox;
  const lines: string[] = [];
  const secrets = new Map<string, string>();
  const keep = (what: string, value: unknown) => {
    expect(typeof value === 'string' && value.length >= 6, what).toBe(true);
    secrets.set(what, value as string);
  };

  beforeAll(async () => {
    const log = createPinoLogger(
      'debug',
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const newsletter = buildMessage({
      from: { address: 'news@list.example' },
      to: [{ address: 'alice@example.test' }],
      date: new Date(Date.UTC(2026, 10, 1)),
      messageId: '<news-1@list.example>',
      subject: 'News',
      text: 'This month.',
      headers: {
        'List-Unsubscribe': `<https://unsub.list.example/u/${UNSUBSCRIBE_TOKEN}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    });
    const invoice = buildMessage({
      from: { address: 'billing@shop.example' },
      to: [{ address: 'alice@example.test' }],
      date: new Date(Date.UTC(2026, 10, 2)),
      messageId: '<invoice-1@shop.example>',
      subject: 'Invoice',
      text: 'Attached.',
      attachments: [
        { filename: 'invoice.pdf', contentType: 'application/pdf', content: Buffer.from('%PDF-1.4') },
      ],
    });
    s = await sendingInbox('alice', IMAP_PASSWORD, {
      app: { overrides: { log } },
      mail: [newsletter, invoice],
    });
  }, 60_000);
  afterAll(async () => {
    await s.close();
  });

  it('holds none of them', async () => {
    const { app, call, inboxId, web } = s;
    const at = (path: string) => new URL(path, app.config.baseUrl);
    const form = (path: string, fields: Record<string, string>) =>
      app.fetch(
        new Request(at(path), {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(fields),
        }),
      );
    keep('the mailbox password', IMAP_PASSWORD);
    keep('the owner’s password', OWNER.password);
    for (const [name, value] of web.cookies) keep(`the cookie ${name}`, value);

    // OAuth: the code, both token pairs, and each replayed.
    const resource = at('/mcp').href;
    const { clientId, code } = await approvedCode(web, resource);
    keep('the authorization code', code);
    const first = (await (
      await form('/oauth/token', { ...codeGrant(code, resource), client_id: clientId })
    ).json()) as {
      access_token: string;
      refresh_token: string;
    };
    keep('the access token', first.access_token);
    keep('the refresh token', first.refresh_token);
    const refresh = { grant_type: 'refresh_token', client_id: clientId, resource };
    const second = (await (
      await form('/oauth/token', { ...refresh, refresh_token: first.refresh_token })
    ).json()) as {
      access_token: string;
      refresh_token: string;
    };
    keep('the second access token', second.access_token);
    keep('the second refresh token', second.refresh_token);
    // Replayed: the first refresh token after its successor was issued, then the code (which ends the sign-in).
    await form('/oauth/token', { ...refresh, refresh_token: first.refresh_token });
    expect((await form('/oauth/token', { ...codeGrant(code, resource), client_id: clientId })).status).toBe(
      400,
    );

    // A guessed key, on /mcp and on the REST API.
    const guessed = `itk_${'q7'.repeat(20)}`;
    keep('a guessed key', guessed);
    const guess = (
      path: string,
      init: { method?: string; headers?: Record<string, string>; body?: string } = {},
    ) =>
      app.fetch(
        new Request(at(path), { ...init, headers: { ...init.headers, authorization: `Bearer ${guessed}` } }),
      );
    expect(
      (
        await guess('/mcp', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        })
      ).status,
    ).toBe(401);
    expect((await guess('/api/inboxes')).status).toBe(401);

    // Sending: the approval code, a wrong one first; the draft card's code.
    const draft = expectToolOk(
      await call('create_draft', { inboxId, to: 'friend@example.org', subject: 'Lunch', text: 'Noon?' }),
    );
    keep('the approval code', draft['approvalCode']);
    const wrongCode = 'QX-4417-ZZ';
    keep('a wrong approval code', wrongCode);
    const send = { pendingSendId: draft['pendingSendId'], humanApprovedInChat: true };
    expect((await call('send_draft', { ...send, approvalCode: wrongCode })).isError).toBe(true);
    expectToolOk(await call('send_draft', { ...send, approvalCode: draft['approvalCode'] }));
    const later = expectToolOk(
      await call('create_draft', { inboxId, to: 'friend@example.org', subject: 'Later', text: 'Or one?' }),
    );
    const shown = await call('show_draft', { inboxId, draftId: (later['draft'] as { id: string }).id });
    keep('the draft card’s code', (shown.meta?.['inbox-triage/card'] as { code: string }).code);

    // A sender's unsubscribe link (its token is the sender's, and unsubscribes the person).
    const listed = expectToolOk(await call('list_messages', { inboxId, limit: 50 }))['messages'] as {
      messageId: string;
      subject: string;
    }[];
    const id = (subject: string) => listed.find((m) => m.subject === subject)!.messageId;
    await call('propose_unsubscribe', { inboxId, messageId: id('News') });
    keep('the unsubscribe token', UNSUBSCRIBE_TOKEN);

    // An attachment's download link, used.
    const invoice = id('Invoice');
    const part = (
      expectToolOk(await call('get_message', { inboxId, messageId: invoice }))['attachments'] as {
        partId: string;
      }[]
    )[0]!;
    const link = expectToolOk(
      await call('get_attachment', { inboxId, messageId: invoice, partId: part.partId }),
    );
    keep('the download link', /att_[a-z0-9]+$/.exec(link['url'] as string)?.[0]);
    expect((await app.fetch(new Request(link['url'] as string))).status).toBe(200);

    // The password form's link, and a wrong mailbox password typed into it.
    const capture = new URL(
      expectToolOk(await call('start_imap_secret_capture', { inboxId }))['url'] as string,
    );
    keep('the password form’s link', capture.searchParams.get('token'));
    const stranger = new WebClient(app);
    await stranger.get(capture.pathname + capture.search);
    const wrongMailboxPassword = 'not-the-imap-passphrase-3';
    keep('a wrong mailbox password', wrongMailboxPassword);
    await stranger.post('/connect/imap', {
      token: capture.searchParams.get('token')!,
      username: 'alice',
      password: wrongMailboxPassword,
    });

    // An invitation, an invited person's password, a wrong password at sign-in.
    const invitation = await app.services.accounts.issueInvitation('bob@example.test');
    keep('an invitation', invitation.ok ? invitation.value : undefined);
    await invitedAccount(app, 'carol@example.test', 'carol-long-passphrase-5');
    keep('the invited person’s password', 'carol-long-passphrase-5');
    const signIn = new WebClient(app);
    await signIn.get('/signin');
    keep('a mistyped password', 'correct horse battery!');
    await signIn.post('/signin', { email: OWNER.email, password: 'correct horse battery!' });

    await new Promise((r) => setImmediate(r));
    const logged = lines.join('');
    expect(logged).toContain('"msg":"request"'); // the lines were captured at all
    expect([...secrets].filter(([, value]) => logged.includes(value)).map(([what]) => what)).toEqual([]);
    expect(secrets.size).toBe(20);
  });
});
