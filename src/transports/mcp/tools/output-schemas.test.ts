import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { App } from '../../../app.ts';
import { connectClient, type ClientKind } from '../../../../test/support/mcp-clients.ts';
import { freshPgDatabase } from '../../../../test/rig/pg.ts';
import { createTestApp } from '../../../../test/support/test-app.ts';
import { startGoogleEmulator, type GoogleEmulator } from '../../../../test/rig/gmail-emulator.ts';
import { startMicrosoftSignIn, type MicrosoftSignIn } from '../../../../test/rig/microsoft-sign-in.ts';
import { agentOn, outputValidators, type ToolResult } from '../../../../test/support/tool-caller.ts';
import { ToolRegistry } from '../tool-registry.ts';
import { ALL_TOOLS } from './index.ts';

// Every tool's real results on the demo inbox, through the real endpoint. The caller checks each result (success or
// error) against the outputSchema of tools/list (tool-caller.ts); here each success is also parsed with the tool's
// zod schema, and the tools come from ALL_TOOLS, so a new tool without a schema or a success here fails.
const BY_NAME = new Map(ALL_TOOLS.map((t) => [t.name, t]));

// The same suite on both engines: every tool once on PostgreSQL too.
describe.each(['sqlite', 'postgres'] as const)(
  'output schemas on %s: published once, and true of every tool’s real results',
  (engine) => {
    let app: App;
    let google: GoogleEmulator;
    let microsoft: MicrosoftSignIn;
    let key: string;
    let raw: Awaited<ReturnType<typeof agentOn>>['call'];
    const succeeded = new Set<string>();
    const failed = new Set<string>();

    async function call(name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
      const r = await raw(name, args);
      (r.isError ? failed : succeeded).add(name);
      if (!r.isError) {
        const parsed = BY_NAME.get(name)?.output.safeParse(r.body);
        expect(parsed?.error, name).toBeUndefined();
        expect(parsed?.data, `${name}: members the zod schema does not know`).toEqual(r.body);
      }
      return r;
    }
    async function ok(name: string, args: Record<string, unknown> = {}) {
      const r = await call(name, args);
      expect(r.isError, `${name} ${JSON.stringify(r.body)}`).toBe(false);
      return r.body;
    }

    beforeAll(async () => {
      // Google sign-in configured against the emulator, so start_google_oauth can succeed.
      google = await startGoogleEmulator();
      microsoft = await startMicrosoftSignIn({ user: 'dana@contoso.test' });
      app = await createTestApp({
        config: {
          syncWindow: 40,
          google: { clientId: 'schema-test', issuer: google.url, gmailApiUrl: google.url, pollSeconds: 30 },
          microsoft: {
            clientId: 'schema-test',
            tenant: 'common',
            authority: microsoft.url,
            graphApiUrl: microsoft.url,
            pollSeconds: 30,
          },
        },
        googleClientSecret: 'schema-test-secret',
        microsoftClientSecret: 'schema-test-secret',
        ...(engine === 'postgres' && { pgUrl: await freshPgDatabase() }),
      });
      ({ key, call: raw } = await agentOn(app));
    });
    afterAll(async () => {
      await app.close();
      await google.close();
      await microsoft.close();
    });

    it.each<ClientKind>(['v2-modern', 'v2-legacy', 'v1'])(
      'tools/list to %s carries the registry’s outputSchema for every tool, rooted at type object',
      async (kind) => {
        const client = await connectClient(app, kind, key);
        const { tools } = await client.listTools();
        await client.close();
        const registry = new ToolRegistry(ALL_TOOLS, { audit: app.stores.audit, maxResultChars: 100_000 });
        expect(tools.map((t) => t.name)).toEqual(ALL_TOOLS.map((t) => t.name));
        for (const t of tools) {
          expect(t.outputSchema, t.name).toMatchObject({ type: 'object' });
          expect(t.outputSchema, t.name).toEqual(
            registry.listed.find((l) => l.name === t.name)?.outputSchema,
          );
        }
      },
    );

    it('the published schemas refuse what a tool does not return, and accept the error shape', async () => {
      const client = await connectClient(app, 'v2-modern', key);
      const check = outputValidators((await client.listTools()).tools).get('list_inboxes')!;
      await client.close();
      expect(check({ inboxes: [], sayToHuman: 'None.' }).valid).toBe(true);
      expect(check({ inboxes: [], surprise: 1 }).valid).toBe(false);
      expect(check({ inboxes: [{ id: 'x' }] }).valid).toBe(false);
      expect(check({ error: 'internal_error', message: 'Try again later.' }).valid).toBe(true);
      expect(check({ error: 'no_such_code', message: 'x' }).valid).toBe(false);
    });

    it('every tool, on its success paths and main variants', async () => {
      const inboxes = (await ok('list_inboxes'))['inboxes'] as { id: string; isDemo: boolean }[];
      const inboxId = inboxes.find((i) => i.isDemo)!.id;
      for (const email of ['dana@gmail.com', 'dana@icloud.com', 'dana@example.org'])
        await ok('propose_connection', { email });
      const added = await ok('add_inbox', {
        label: 'Work',
        provider: 'imap',
        email: 'dana@example.org',
        imapHost: 'imap.example.org',
      });
      const workId = (added['inbox'] as { id: string }).id;
      await ok('start_imap_secret_capture', { inboxId: workId });
      for (const name of ['start_google_oauth', 'start_microsoft_oauth'])
        expect((await call(name, { inboxId })).body['error']).toBe('not_supported');
      const gmailInbox = await ok('add_inbox', {
        label: 'Gmail',
        provider: 'google',
        email: 'dana@gmail.com',
      });
      await ok('start_google_oauth', { inboxId: (gmailInbox['inbox'] as { id: string }).id });
      const outlook = await ok('add_inbox', {
        label: 'Work',
        provider: 'microsoft',
        email: 'dana@contoso.test',
      });
      await ok('start_microsoft_oauth', { inboxId: (outlook['inbox'] as { id: string }).id });
      expect(await ok('get_connection_status', { inboxId })).toMatchObject({ canSyncNow: true });
      expect(await ok('get_connection_status', { inboxId: workId })).toMatchObject({ canSyncNow: false });

      // Reading.
      await ok('sync_inbox', { inboxId });
      await ok('list_folders', { inboxId });
      await ok('load_older_messages', { inboxId, folder: 'inbox', count: 200 });
      type Preview = { messageId: string; hasAttachments: boolean; from: { address: string } };
      const messages = (await ok('list_messages', { inboxId, limit: 200 }))['messages'] as Preview[];
      const withFile = messages.find((m) => m.hasAttachments)!;
      const full = await ok('get_message', { inboxId, messageId: withFile.messageId });
      const partId = (full['attachments'] as { partId: string }[])[0]!.partId;
      await ok('get_attachment', { inboxId, messageId: withFile.messageId, partId });
      await ok('search_mailbox', { inboxId, query: 'e' });
      await ok('show_inbox');
      await ok('show_inbox', { inboxId, unreadOnly: true, limit: 5 });
      await ok('list_labels', { inboxId });

      // Changing mail, inside a triage pass; a VIP's message is skipped in bulk.
      const [m0, m1, m2, m3, m4] = messages.filter((m) => m !== withFile);
      await ok('add_vip', { emails: [m4!.from.address], domains: ['example.net'] });
      await ok('list_vips');
      expect(await ok('begin_triage', { inboxId, agentLabel: 'tidy' })).toMatchObject({ started: true });
      expect(await ok('begin_triage', { inboxId, agentLabel: 'tidy' })).toMatchObject({ resumed: true });
      await ok('heartbeat_triage', { inboxId, agentLabel: 'tidy' });
      const trashed = await ok('trash_message', { inboxId, messageId: m0!.messageId });
      await ok('undo_action', { undoId: trashed['undoId'] });
      await ok('mark_as_spam', { inboxId, messageId: m1!.messageId });
      await ok('archive_messages', { inboxId, messageIds: [m2!.messageId], confirmed: true });
      const items = [m3!, m4!].map((m) => ({ inboxId, messageId: m.messageId }));
      const acted = await ok('act_on_messages', { action: 'archive', items });
      expect(acted['skipped']).toMatchObject([{ reason: 'vip' }]);
      const sender = { inboxId, email: m4!.from.address };
      await ok('act_on_messages', { action: 'label', sender, labelIds: ['Travel'] });
      const one = { inboxId, messageIds: [m3!.messageId] };
      await ok('apply_labels', { ...one, labelIds: ['Clients'] });
      await ok('remove_labels', { ...one, labelIds: ['Clients'] });
      await ok('star_messages', { ...one, starred: true });
      expect(await ok('end_triage', { inboxId, agentLabel: 'tidy', summary: 'Tidied.' })).toEqual({
        ended: true,
      });
      expect(await ok('end_triage', { inboxId, agentLabel: 'tidy' })).toMatchObject({ ended: false });
      expect(await ok('begin_triage', { inboxId, agentLabel: 'tidy' })).toMatchObject({ started: false });
      await ok('get_triage_activity');
      await ok('get_triage_activity', { inboxId });
      expect(await ok('remove_vip', { domains: ['example.net'] })).toMatchObject({ removed: false });
      expect(await ok('remove_vip', { domains: ['example.net'], confirmed: true })).toMatchObject({
        removed: true,
      });

      // The profile.
      await ok('get_triage_profile');
      const quietHours = { start: '22:00', end: '07:00', timezone: 'Europe/Berlin' };
      await ok('update_triage_profile', { patch: { inboxes: { [inboxId]: { quietHours } } } });
      expect(await ok('get_triage_profile', { inboxId })).toMatchObject({ effective: { quietHours } });

      // Drafts and sending, without and with sending on.
      const draft = { inboxId, to: 'friend@example.test', subject: 'Lunch?', text: 'Thursday?' };
      expect(await ok('create_draft', draft)).toMatchObject({ sendAvailable: false });
      await ok('set_send_enabled', { enabled: true, humanConfirmedInChat: true });
      const offered = await ok('create_draft', draft);
      expect(offered).toMatchObject({ sendAvailable: true });
      const draftId = (offered['draft'] as { id: string }).id;
      await ok('show_draft', { inboxId, draftId });
      await ok('send_draft', {
        pendingSendId: offered['pendingSendId'],
        approvalCode: offered['approvalCode'],
        humanApprovedInChat: true,
        confirmTo: draft.to,
        confirmSubject: draft.subject,
      });
      // The draft card: a save hands a new code, the send uses it.
      const carded = await ok('create_draft', { ...draft, subject: 'Card' });
      const cardOf = (r: ToolResult) => (r.meta?.['inbox-triage/card'] as { code: string }).code;
      const shown = await raw('show_draft', { inboxId, draftId: (carded['draft'] as { id: string }).id });
      const edit = { to: draft.to, subject: 'Card, edited', body: 'Friday?' };
      const saved = await call('update_draft_from_card', { nonce: cardOf(shown), ...edit });
      expect(saved.isError).toBe(false);
      await ok('send_draft_from_card', { nonce: cardOf(saved), ...edit });
      await ok('set_send_enabled', { enabled: false, humanConfirmedInChat: true });

      // Unsubscribing: a one-click list sender of the demo inbox, proposed and confirmed.
      type Row = { inboxId: string; messageId: string; oneClickAdvertised: boolean };
      const rows = (await ok('review_unsubscribes', { inbox: inboxId, limit: 100 }))['senders'] as Row[];
      const list = rows.find((r) => r.oneClickAdvertised)!;
      const proposed = await ok('propose_unsubscribe', { inboxId, messageId: list.messageId });
      await ok('confirm_unsubscribe', {
        pendingUnsubscribeId: proposed['pendingUnsubscribeId'],
        approvalCode: proposed['approvalCode'],
        humanApprovedInChat: true,
      });
      await ok('review_unsubscribes');

      // Junk screening: hand out, judge each kind, review, rescue one, report one.
      type Offered = { inboxId: string; messageId: string };
      const batch = (await ok('screen_junk', { inbox: inboxId }))['messages'] as Offered[];
      expect(batch.length).toBeGreaterThanOrEqual(4);
      const [a, b, c, d] = batch.map((m) => ({ inboxId: m.inboxId, messageId: m.messageId }));
      const done = await ok('confirm_screening', {
        verdicts: [
          { ...a, verdict: 'junk', reason: 'look-alike domain' },
          { ...b, verdict: 'junk' },
          { ...c, verdict: 'unsure' },
          { ...d, verdict: 'fine' },
        ],
      });
      expect(done['applied']).toHaveLength(4);
      type Screened = { id: string; inboxId: string };
      const screened = (await ok('review_screened', { inbox: inboxId }))['rows'] as Screened[];
      expect(screened).toHaveLength(2);
      await ok('show_screened', { days: 30 });
      await ok('rescue_screened', { inboxId, id: screened[0]!.id });
      await ok('report_screened', { inboxId, id: screened[1]!.id });
    });

    it('covered every tool of ALL_TOOLS: a success, or the error of a tool that cannot succeed yet', () => {
      for (const t of ALL_TOOLS) {
        if (t.output instanceof z.ZodNever) expect(failed.has(t.name), t.name).toBe(true);
        else expect(succeeded.has(t.name), `${t.name} was never called with success`).toBe(true);
      }
    });

    it('a result cut to the size limit still matches its schema', async () => {
      const small = await createTestApp({
        config: { syncWindow: 40 },
        overrides: { maxToolResultChars: 4000 },
      });
      try {
        const { call: c } = await agentOn(small);
        const list = (await c('list_inboxes')).body['inboxes'] as { id: string; isDemo: boolean }[];
        const inboxId = list.find((i) => i.isDemo)!.id;
        await c('sync_inbox', { inboxId });
        const r = await c('list_messages', { inboxId, limit: 40 });
        expect(r.body['truncated']).toMatchObject({ fields: ['messages'] });
        expect(BY_NAME.get('list_messages')?.output.safeParse(r.body).success).toBe(true);
      } finally {
        await small.close();
      }
    });
  },
);
