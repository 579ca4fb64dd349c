import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { App } from '../../app.ts';
import { connectClient, type ClientKind } from '../../../test/support/mcp-clients.ts';
import { createTestApp } from '../../../test/support/test-app.ts';
import { agentOn } from '../../../test/support/tool-caller.ts';

/**
 * Every tool of the interface contract (§4.3–§4.9, and `show_inbox` of §4.2) with its arguments: R and O, as the
 * contract's tables write them. Transcribed by hand; a tool or argument renamed or made required breaks this test.
 */
const CONTRACT: Readonly<Record<string, { required: readonly string[]; optional: readonly string[] }>> = {
  trash_message: { required: ['inboxId', 'messageId'], optional: ['confirmed'] },
  mark_as_spam: { required: ['inboxId', 'messageId'], optional: ['confirmed'] },
  archive_messages: { required: ['inboxId', 'messageIds', 'confirmed'], optional: [] },
  act_on_messages: { required: ['action'], optional: ['items', 'sender', 'labelIds', 'vipConfirmed'] },
  apply_labels: { required: ['inboxId', 'messageIds', 'labelIds'], optional: ['confirmed'] },
  remove_labels: { required: ['inboxId', 'messageIds', 'labelIds'], optional: ['confirmed'] },
  star_messages: { required: ['inboxId', 'messageIds', 'starred'], optional: ['confirmed'] },
  begin_triage: { required: ['inboxId', 'agentLabel'], optional: ['force'] },
  heartbeat_triage: { required: ['inboxId', 'agentLabel'], optional: [] },
  end_triage: { required: ['inboxId', 'agentLabel'], optional: ['summary'] },
  get_triage_activity: { required: [], optional: ['inboxId'] },
  create_draft: { required: ['inboxId', 'to', 'subject', 'text'], optional: ['threadId'] },
  send_draft: {
    required: ['pendingSendId', 'approvalCode'],
    optional: ['humanApprovedInChat', 'confirmTo', 'confirmSubject'],
  },
  show_draft: { required: ['inboxId', 'draftId'], optional: [] },
  set_send_enabled: { required: ['enabled', 'humanConfirmedInChat'], optional: [] },
  update_draft_from_card: { required: ['nonce', 'to', 'subject', 'body'], optional: [] },
  send_draft_from_card: { required: ['nonce', 'to', 'subject', 'body'], optional: [] },
  propose_connection: { required: ['email'], optional: [] },
  add_inbox: { required: ['label', 'provider', 'email'], optional: ['imapHost', 'imapPort', 'imapUser'] },
  start_google_oauth: { required: ['inboxId'], optional: [] },
  start_microsoft_oauth: { required: ['inboxId'], optional: [] },
  start_imap_secret_capture: { required: ['inboxId'], optional: [] },
  get_connection_status: { required: ['inboxId'], optional: [] },
  list_inboxes: { required: [], optional: [] },
  list_vips: { required: [], optional: [] },
  add_vip: { required: [], optional: ['emails', 'domains'] },
  remove_vip: { required: [], optional: ['emails', 'domains', 'confirmed'] },
  get_triage_profile: { required: [], optional: ['inboxId'] },
  update_triage_profile: { required: ['patch'], optional: [] },
  review_unsubscribes: { required: [], optional: ['inbox'] },
  propose_unsubscribe: { required: ['inboxId', 'messageId'], optional: ['confirmed'] },
  confirm_unsubscribe: {
    required: ['pendingUnsubscribeId', 'approvalCode'],
    optional: ['humanApprovedInChat'],
  },
  sync_inbox: { required: ['inboxId'], optional: ['folders'] },
  list_folders: { required: ['inboxId'], optional: [] },
  list_messages: { required: ['inboxId'], optional: ['unreadOnly', 'query', 'folder', 'limit', 'offset'] },
  get_message: { required: ['inboxId', 'messageId'], optional: [] },
  search_mailbox: { required: ['inboxId', 'query'], optional: ['folder', 'limit'] },
  load_older_messages: { required: ['inboxId', 'folder'], optional: ['count'] },
  get_attachment: { required: ['inboxId', 'messageId', 'partId'], optional: [] },
  list_labels: { required: ['inboxId'], optional: [] },
  review_screened: { required: [], optional: ['inbox', 'days', 'since', 'offset', 'limit'] },
  rescue_screened: { required: ['inboxId', 'id'], optional: [] },
  report_screened: { required: ['inboxId', 'id'], optional: [] },
  screen_junk: { required: [], optional: ['inbox'] },
  confirm_screening: { required: ['verdicts'], optional: [] },
  show_screened: { required: [], optional: ['inbox', 'days', 'offset', 'limit'] },
  show_inbox: { required: [], optional: ['inboxId'] },
};

const APP_ONLY = ['update_draft_from_card', 'send_draft_from_card'];

interface Listed {
  name: string;
  inputSchema: { properties?: Record<string, unknown>; required?: string[] };
  _meta?: { ui?: { visibility?: string[]; resourceUri?: string }; [k: string]: unknown };
}

describe('tools/list against the contract', () => {
  let app: App;
  let key: string;
  let tools: Listed[];
  beforeAll(async () => {
    app = await createTestApp();
    ({ key } = await agentOn(app));
    const client = await connectClient(app, 'v2-modern', key);
    tools = (await client.listTools()).tools;
    await client.close();
  }, 60_000);
  afterAll(async () => {
    await app.close();
  });

  it('has all 47 tools of the contract, each with its argument names and required-ness', () => {
    expect(Object.keys(CONTRACT)).toHaveLength(47);
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const [name, args] of Object.entries(CONTRACT)) {
      const tool = byName.get(name);
      expect(tool, name).toBeDefined();
      const properties = Object.keys(tool!.inputSchema.properties ?? {});
      const required = new Set(tool!.inputSchema.required ?? []);
      for (const a of args.required) {
        expect(properties, `${name}.${a}`).toContain(a);
        expect(required.has(a), `${name}.${a} is required`).toBe(true);
      }
      for (const a of args.optional) {
        expect(properties, `${name}.${a}`).toContain(a);
        expect(required.has(a), `${name}.${a} is optional`).toBe(false);
      }
      // Nothing required beyond what the contract requires.
      expect([...required].sort(), name).toEqual([...args.required].sort());
    }
  });

  it('marks the card’s two tools app-only and leaves every other tool visible to the model', () => {
    for (const t of tools) {
      const visibility = t._meta?.ui?.visibility;
      if (APP_ONLY.includes(t.name)) {
        expect(visibility, t.name).toEqual(['app']);
        expect(t._meta?.['openai/visibility'], t.name).toBe('private');
        expect(t._meta?.['openai/widgetAccessible'], t.name).toBe(true);
        expect(t._meta?.ui?.resourceUri, t.name).toMatch(/^ui:\/\/inbox-triage\/draft-[0-9a-f]{12}\.html$/);
      } else {
        expect(visibility === undefined || visibility.includes('model'), t.name).toBe(true);
        expect(t._meta?.['openai/visibility'], t.name).toBeUndefined();
      }
    }
    expect(tools.find((t) => t.name === 'send_draft')?._meta?.ui?.visibility).toEqual(['model']);
  });

  it('points each view tool at its view', () => {
    const uri = (name: string) => tools.find((t) => t.name === name)?._meta?.ui?.resourceUri;
    expect(uri('show_inbox')).toMatch(/\/triage-[0-9a-f]{12}\.html$/);
    expect(uri('show_draft')).toMatch(/\/draft-[0-9a-f]{12}\.html$/);
    expect(uri('review_unsubscribes')).toMatch(/\/unsubscribes-[0-9a-f]{12}\.html$/);
    expect(uri('show_screened')).toMatch(/\/screened-[0-9a-f]{12}\.html$/);
  });

  it.each<ClientKind>(['v2-modern', 'v2-legacy', 'v1'])(
    'resources/list and resources/read to %s give exactly the four views, each hashing to its address',
    async (kind) => {
      const client = await connectClient(app, kind, key);
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.name).sort()).toEqual(['draft', 'screened', 'triage', 'unsubscribes']);
      const viewUris = new Set(
        tools.flatMap((t) => (t._meta?.ui?.resourceUri === undefined ? [] : [t._meta.ui.resourceUri])),
      );
      expect(new Set(resources.map((r) => r.uri))).toEqual(viewUris);
      for (const r of resources) {
        expect(r.mimeType).toBe('text/html;profile=mcp-app');
        const [content] = (await client.readResource(r.uri)).contents;
        expect(content?.uri).toBe(r.uri);
        expect(content?.mimeType).toBe('text/html;profile=mcp-app');
        const hash = createHash('sha256').update(content!.text!).digest('hex').slice(0, 12);
        expect(r.uri).toBe(`ui://inbox-triage/${r.name}-${hash}.html`);
        // Nothing external: no domains in the CSP metadata, no URL in the file.
        expect(content?._meta).toEqual({
          ui: {
            csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
            prefersBorder: true,
          },
        });
        expect(content!.text).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
      }
      await expect(client.readResource('ui://inbox-triage/triage-000000000000.html')).rejects.toThrow();
      await client.close();
    },
  );
});
