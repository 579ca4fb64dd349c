import type { Powers } from '../../core/auth/agent-powers.ts';
import { EVERYTHING } from '../../core/auth/allowed.ts';
import type { InboxReach } from '../../core/auth/inbox-reach.ts';
import type { InboxId } from '../../core/inboxes/inbox.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../app.ts';
import type { AuditLog } from '../../core/audit/audit-log.ts';
import { createTestApp } from '../../../test/support/test-app.ts';
import { ownerCaller } from '../../../test/support/owner-caller.ts';
import { toolContext, type Caller } from './tool-context.ts';
import { ToolRegistry } from './tool-registry.ts';
import { ALL_TOOLS } from './tools/index.ts';

// Decision 0056: every read of the person's mail is in their activity log, or is not answered.
describe('a tool call whose activity row cannot be written', () => {
  let app: App;
  let caller: Caller;
  let inboxId: string;
  let messageId: string;
  const failing = (audit: AuditLog): AuditLog => ({
    record: () => Promise.reject(new Error('database or disk is full')),
    recent: (...a) => audit.recent(...a),
    page: (...a) => audit.page(...a),
    deleteBefore: (...a) => audit.deleteBefore(...a),
  });
  beforeAll(async () => {
    app = await createTestApp();
    caller = await ownerCaller(app);
    const working = new ToolRegistry(ALL_TOOLS, { audit: app.stores.audit, maxResultChars: 100_000 });
    const call = async (name: string, args: Record<string, unknown>) =>
      (await working.call(name, args, toolContext(caller, app.services.tools, app.clock)))!.structuredContent;
    inboxId = ((await call('list_inboxes', {}))['inboxes'] as { id: string }[])[0]!.id;
    await call('sync_inbox', { inboxId });
    messageId = (
      (await call('list_messages', { inboxId, limit: 2 }))['messages'] as { messageId: string }[]
    )[1]!.messageId;
  });
  afterAll(async () => {
    await app.close();
  });

  const broken = () =>
    new ToolRegistry(ALL_TOOLS, { audit: failing(app.stores.audit), maxResultChars: 100_000 });
  const ctx = () => toolContext(caller, app.services.tools, app.clock);

  it('withholds a read: no mail reaches the agent unrecorded', async () => {
    for (const [name, args] of [
      ['list_messages', { inboxId, limit: 5 }],
      ['get_message', { inboxId, messageId }],
    ] as const) {
      const result = (await broken().call(name, args, ctx()))!;
      expect(result.isError, name).toBe(true);
      expect(result.structuredContent).toEqual({
        error: 'internal_error',
        message:
          'The answer could not be written to the activity log, so it is withheld. Try again later; if it keeps failing, tell the person.',
      });
      expect(JSON.stringify(result)).not.toContain('snippet');
    }
  });

  it('still answers a change that was made, with its undo handle', async () => {
    const result = (await broken().call(
      'act_on_messages',
      { action: 'star', items: [{ inboxId, messageId }] },
      ctx(),
    ))!;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ changed: [{ messageId }], undoId: expect.any(String) });
  });
});

// Decision 0141: what a credential may do beyond reading is the person's to give. A tool that changes anything
// outside the service's own index must need a power; reading is what every agent may do.
describe('what each tool needs', () => {
  it('every tool that is not read-only needs a power, but the two that only fill the index', () => {
    const readingThatWrites = ALL_TOOLS.filter((t) => t.needs === 'read' && !t.annotations.readOnlyHint);
    expect(readingThatWrites.map((t) => t.name).sort()).toEqual(['load_older_messages', 'sync_inbox']);
  });

  it('a credential lists what it may call: reading alone, one power, every power', () => {
    const registry = new ToolRegistry(ALL_TOOLS, {
      audit: { record: () => Promise.resolve() } as unknown as AuditLog,
      maxResultChars: 100_000,
    });
    const names = (powers: Powers, inboxes: InboxReach = null) =>
      registry.listedFor({ powers, inboxes }).tools.map((t) => t.name);
    expect(names(null)).toHaveLength(ALL_TOOLS.length);
    expect(names(new Set())).toHaveLength(17);
    expect(names(new Set(['unsubscribe'])).sort()).toEqual(
      [...names(new Set()), 'propose_unsubscribe', 'confirm_unsubscribe'].sort(),
    );
    // The triage lease and undo serve whoever may change mail: a screening agent undoes its own screening.
    const screening = names(new Set(['screen']));
    expect(screening).toEqual(expect.arrayContaining(['undo_action', 'begin_triage', 'confirm_screening']));
    expect(screening).not.toContain('archive_messages');
    expect(screening).toHaveLength(17 + 4 + 4);
    // Built once per set: the fast path's JSON is the same string each time.
    const tidy = { powers: new Set(['tidy'] as const), inboxes: null };
    expect(registry.listedFor(tidy).json).toBe(registry.listedFor({ ...tidy }).json);
    expect(JSON.parse(registry.listedFor(EVERYTHING).json)).toEqual(registry.listed);
  });

  it('a credential that reaches only some inboxes lists nothing that changes what every inbox shares (0142, 0143)', () => {
    const registry = new ToolRegistry(ALL_TOOLS, {
      audit: { record: () => Promise.resolve() } as unknown as AuditLog,
      maxResultChars: 100_000,
    });
    const some = new Set(['inbox_aaaaaaaaaaaaaaaaaaaa' as InboxId]);
    const every = registry.listedFor(EVERYTHING).tools.map((t) => t.name);
    const scoped = registry.listedFor({ powers: null, inboxes: some }).tools.map((t) => t.name);
    // The profile stays: its own inboxes' overrides are the agent's to change (decision 0143).
    const spanning = ['add_inbox', 'propose_connection', 'add_vip', 'remove_vip', 'set_send_enabled'];
    expect(every.filter((n) => !scoped.includes(n)).sort()).toEqual([...spanning].sort());
    expect(scoped).toContain('update_triage_profile');
    // No inbox at all is still "only some": reading what is left to it, the VIPs and the profile.
    expect(registry.listedFor({ powers: new Set(), inboxes: new Set() }).tools).toHaveLength(17);
  });
});

describe('a call to a tool the credential may not use', () => {
  let app: App;
  let caller: Caller;
  beforeAll(async () => {
    app = await createTestApp();
    const owner = await ownerCaller(app);
    caller = { ...owner, principal: { ...owner.principal, powers: new Set() } };
  });
  afterAll(async () => {
    await app.close();
  });

  it('is refused in words naming what the person has not allowed, before its arguments are read', async () => {
    const registry = new ToolRegistry(ALL_TOOLS, { audit: app.stores.audit, maxResultChars: 100_000 });
    const call = async (name: string, args: unknown) =>
      (await registry.call(name, args, toolContext(caller, app.services.tools, app.clock)))!;
    const undo = await call('undo_action', { nonsense: true });
    expect(undo.isError).toBe(true);
    expect(undo.structuredContent).toMatchObject({
      error: 'not_allowed',
      details: { needs: ['tidy', 'screen'] },
    });
    expect(String(undo.structuredContent['message'])).toContain('tidy mail');
    expect(String(undo.structuredContent['message'])).toContain('nor to screen junk');
    const vip = await call('add_vip', {});
    expect(vip.structuredContent['message']).toContain('change the person’s settings');
    expect(vip.structuredContent['sayToHuman']).toContain('You have not allowed this agent to add inboxes');
    // Reading is every agent's.
    expect((await call('list_inboxes', {})).isError).toBeFalsy();
  });

  it('is refused, holding every power, when it spans every inbox and the agent reaches only some (0142)', async () => {
    const registry = new ToolRegistry(ALL_TOOLS, { audit: app.stores.audit, maxResultChars: 100_000 });
    const scoped = {
      ...caller,
      principal: { ...caller.principal, powers: null, inboxes: new Set<InboxId>() },
    };
    const vip = (await registry.call(
      'add_vip',
      { nonsense: true },
      toolContext(scoped, app.services.tools, app.clock),
    ))!;
    expect(vip.structuredContent).toMatchObject({ error: 'not_allowed', details: { needs: 'every_inbox' } });
    expect(String(vip.structuredContent['message'])).toContain('only some of their inboxes');
    expect(String(vip.structuredContent['sayToHuman'])).toContain('only some of your inboxes');
  });
});
