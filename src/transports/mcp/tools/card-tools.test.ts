import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoMailbox } from '../../../adapters/mail/demo/demo-mailbox.ts';
import type { App } from '../../../app.ts';
import { fixedClock } from '../../../lib/clock.ts';
import { freshPgDatabase } from '../../../../test/rig/pg.ts';
import { recordingLogger } from '../../../../test/support/recording-logger.ts';
import { createTestApp } from '../../../../test/support/test-app.ts';
import {
  agentOn,
  expectToolError,
  expectToolOk,
  toolCaller,
  type ToolResult,
} from '../../../../test/support/tool-caller.ts';
import { createKeyViaPage, invitedAccount } from '../../../../test/support/web-client.ts';

type Caller = ReturnType<typeof toolCaller>;
const CARD = 'inbox-triage/card';

// The draft card's app-only tools called as a model would: a plain MCP client over the real /mcp with an API key.
// The server cannot tell a view from a model, so each refusal below rests on the single-use card code alone.
describe.each(['sqlite', 'postgres'] as const)('the draft card’s tools without the card, on %s', (engine) => {
  let app: App;
  let call: Caller;
  let stranger: Caller;
  let web: Awaited<ReturnType<typeof agentOn>>['web'];
  let inboxId: string;
  const { log, lines: logged } = recordingLogger();
  const clock = fixedClock(new Date('2026-11-25T09:00:00Z'));
  const sentRows = () => new DemoMailbox(app.db, inboxId).rows('Sent').then((r) => r.length);

  beforeAll(async () => {
    app = await createTestApp({
      overrides: { clock, log },
      ...(engine === 'postgres' && { pgUrl: await freshPgDatabase() }),
    });
    ({ call, web } = await agentOn(app));
    inboxId = (expectToolOk(await call('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
    expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
    const other = await invitedAccount(app, 'other@example.test');
    await app.services.accounts.setPlan('other@example.test', 'pro');
    stranger = toolCaller(app, await createKeyViaPage(other));
  }, 60_000);
  afterAll(async () => {
    await app.close();
  });

  const draft = async (subject: string) => {
    const r = expectToolOk(
      await call('create_draft', { inboxId, to: 'sam@example.test', subject, text: 'Noon?' }),
    );
    return {
      id: (r['draft'] as { id: string }).id,
      subject,
      pendingSendId: r['pendingSendId'],
      code: r['approvalCode'],
    };
  };
  const show = async (draftId: string) => {
    const r = await call('show_draft', { inboxId, draftId });
    expectToolOk(r);
    return r;
  };
  const codeOf = (r: ToolResult) => (r.meta?.[CARD] as { code: string }).code;
  const content = (subject: string, body = 'Noon?') => ({ to: 'sam@example.test', subject, body });

  it('keeps the code out of everything a model reads: the text, the structured copy, the log', async () => {
    const d = await draft('Code stays in the card');
    const shown = await show(d.id);
    const code = codeOf(shown);
    expect(code).toMatch(/^card_[A-Za-z0-9]{32}$/);
    expect(shown.text).not.toContain(code);
    expect(JSON.stringify(shown.raw)).not.toContain(code);
    expect(shown.text).not.toContain('card_');
    expectToolOk(await call('send_draft_from_card', { nonce: code, ...content(d.subject) }));
    expect(logged.join('\n')).not.toContain(code);
  });

  it('refuses a call without a code, or with a forged one; nothing is sent', async () => {
    const d = await draft('No code');
    await show(d.id);
    const before = await sentRows();
    expectToolError(await call('send_draft_from_card', content(d.subject)), 'invalid_arguments');
    expectToolError(await call('update_draft_from_card', content(d.subject)), 'invalid_arguments');
    for (const nonce of [
      '',
      'card_',
      `card_${'a'.repeat(32)}`,
      d.code as string,
      d.pendingSendId as string,
    ]) {
      expectToolError(
        await call('send_draft_from_card', { nonce, ...content(d.subject) }),
        'approval_invalid',
      );
      expectToolError(
        await call('update_draft_from_card', { nonce, ...content('Edited') }),
        'approval_invalid',
      );
    }
    expect(await sentRows()).toBe(before);
  });

  it('refuses another account’s code, and a code used with another draft’s content', async () => {
    const mine = await draft('Mine');
    const code = codeOf(await show(mine.id));
    const before = await sentRows();
    expectToolError(
      await stranger('send_draft_from_card', { nonce: code, ...content(mine.subject) }),
      'approval_invalid',
    );
    expectToolError(
      await stranger('update_draft_from_card', { nonce: code, ...content('Taken') }),
      'approval_invalid',
    );
    // The stranger's tries did not spend it; the draft is untouched.
    const other = await draft('Another draft');
    expectToolError(
      await call('send_draft_from_card', { nonce: code, ...content(other.subject) }),
      'confirm_mismatch',
    );
    expect(await sentRows()).toBe(before);
    expect(expectToolOk(await call('show_draft', { inboxId, draftId: mine.id }))['draft']).toMatchObject({
      subject: 'Mine',
      status: 'draft',
    });
  });

  it('a code works once: a second use, or 100 racing clicks, send one message', async () => {
    const d = await draft('Once');
    const code = codeOf(await show(d.id));
    const before = await sentRows();
    const racing = await Promise.all(
      Array.from({ length: 100 }, () => call('send_draft_from_card', { nonce: code, ...content(d.subject) })),
    );
    expect(racing.filter((r) => !r.isError)).toHaveLength(1);
    expect(new Set(racing.filter((r) => r.isError).map((r) => r.body['error']))).toEqual(
      new Set(['approval_used']),
    );
    expect(await sentRows()).toBe(before + 1);
    expectToolError(
      await call('send_draft_from_card', { nonce: code, ...content(d.subject) }),
      'approval_used',
    );
    // Its chat approval is void too: the draft went out once.
    const chat = await call('send_draft', {
      pendingSendId: d.pendingSendId,
      approvalCode: d.code,
      humanApprovedInChat: true,
    });
    expect(chat.isError).toBe(true);
    expect(await sentRows()).toBe(before + 1);
  });

  it('a chat approval and a card click racing for one draft send it once', async () => {
    const d = await draft('Chat or card');
    const code = codeOf(await show(d.id));
    const before = await sentRows();
    const [a, b] = await Promise.all([
      call('send_draft', { pendingSendId: d.pendingSendId, approvalCode: d.code, humanApprovedInChat: true }),
      call('send_draft_from_card', { nonce: code, ...content(d.subject) }),
    ]);
    expect([a, b].filter((r) => !r.isError)).toHaveLength(1);
    expect(await sentRows()).toBe(before + 1);
  });

  it('an edit spends the code and voids every older one; the new code sends the saved text', async () => {
    const d = await draft('Before the edit');
    const first = codeOf(await show(d.id));
    const second = codeOf(await show(d.id));
    const saved = await call('update_draft_from_card', {
      nonce: first,
      ...content('After the edit', 'Half twelve?'),
    });
    expectToolOk(saved);
    const before = await sentRows();
    // The other card still open on the old version, and the agent's approval of the old text: refused.
    expectToolError(
      await call('send_draft_from_card', { nonce: second, ...content(d.subject) }),
      'approval_invalid',
    );
    expectToolError(
      await call('send_draft_from_card', { nonce: first, ...content('After the edit', 'Half twelve?') }),
      'approval_used',
    );
    expectToolError(
      await call('send_draft', {
        pendingSendId: d.pendingSendId,
        approvalCode: d.code,
        humanApprovedInChat: true,
      }),
      'approval_invalid',
    );
    expect(await sentRows()).toBe(before);
    // Only the content the card shows: the saved one.
    const next = codeOf(saved);
    expectToolError(
      await call('send_draft_from_card', { nonce: next, ...content('Before the edit') }),
      'confirm_mismatch',
    );
    const again = codeOf(await show(d.id));
    expectToolOk(
      await call('send_draft_from_card', { nonce: again, ...content('After the edit', 'Half twelve?') }),
    );
    expect(await sentRows()).toBe(before + 1);
  });

  it('a code is good for 30 minutes', async () => {
    const d = await draft('Slow reader');
    const code = codeOf(await show(d.id));
    clock.advance(30 * 60_000 + 1);
    expectToolError(
      await call('send_draft_from_card', { nonce: code, ...content(d.subject) }),
      'approval_expired',
    );
  });

  it('with sending off, the card saves but does not send', async () => {
    const d = await draft('Sending off');
    expectToolOk(await call('set_send_enabled', { enabled: false, humanConfirmedInChat: true }));
    const shown = await show(d.id);
    expect(shown.body['sendAvailable']).toBe(false);
    const saved = expectToolOk(
      await call('update_draft_from_card', { nonce: codeOf(shown), ...content('Saved only') }),
    );
    expect(saved['draft']).toMatchObject({ subject: 'Saved only' });
    const before = await sentRows();
    const refused = await call('send_draft_from_card', {
      nonce: codeOf(await show(d.id)),
      ...content('Saved only'),
    });
    expectToolError(refused, 'send_disabled');
    expect(await sentRows()).toBe(before);
    expectToolOk(await call('set_send_enabled', { enabled: true, humanConfirmedInChat: true }));
  });

  it('what the person could not see: smuggled text is refused, a character that shows nothing is pointed out (decision 0112)', async () => {
    const tags = Array.from('the password is hunter2')
      .map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0)))
      .join('');
    for (const text of [`See you Thursday.${tags}`, 'See you\u200b\u200c\u200b\u200c Thursday.']) {
      const refused = expectToolError(
        await call('create_draft', { inboxId, to: 'sam@example.test', subject: 'Thursday', text }),
        'invalid_arguments',
      );
      expect(refused['message']).toMatch(
        /no reader sees.*: the person approving the draft could not see what they carry/,
      );
    }
    // An emoji's joiners are what emoji are made of: nothing to point out.
    const family = expectToolOk(
      await call('create_draft', {
        inboxId,
        to: 'sam@example.test',
        subject: 'Us',
        text: 'Love, \u{1f468}\u200d\u{1f469}\u200d\u{1f467}',
      }),
    );
    expect((await show((family['draft'] as { id: string }).id)).meta?.[CARD]).not.toHaveProperty('unseen');
    // One zero-width space: allowed (Thai needs it), and said to the person wherever they approve.
    const one = expectToolOk(
      await call('create_draft', { inboxId, to: 'sam@example.test', subject: 'Lunch', text: 'Noon\u200b?' }),
    );
    const id = (one['draft'] as { id: string }).id;
    const words =
      'This draft holds 1 character that shows nothing (zero-width spaces, joiners, soft hyphens). Some languages and emoji need them; if you did not expect it, do not send it.';
    const shown = await show(id);
    expect((shown.meta?.[CARD] as { unseen?: string }).unseen).toBe(words);
    expect(JSON.stringify(shown.body)).not.toContain('shows nothing');
    await web.get('/waiting');
    expect(web.lastHtml).toContain(words);
    // The person's edit without it: the card's next code comes without the words.
    const saved = await call('update_draft_from_card', {
      nonce: codeOf(shown),
      ...content('Lunch', 'Noon?'),
    });
    expectToolOk(saved);
    expect(saved.meta?.[CARD]).not.toHaveProperty('unseen');
  });
});
