import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildMessage, seedMaildir } from '../rig/index.ts';
import { databaseFaultRig } from '../support/database-fault-rig.ts';
import { connectImapInbox, mailboxState } from '../support/imap-inbox.ts';
import { expectToolError, expectToolOk } from '../support/tool-caller.ts';

// A change whose index write failed on our own database was answered provider_error "The mailbox refused the change:
// the connection failed", and the undo handle was trimmed to the changes recorded before the failure: a message the
// mailbox had moved, or flagged, had no undo. Now the answer is internal_error (the error goes to the log), and the
// handle keeps every change the mailbox made.
const PASSWORD = 'a long enough password';
let rig: Awaited<ReturnType<typeof databaseFaultRig>>;
let call: (typeof rig)['call'];
let db: (typeof rig)['db'];
let dovecot: (typeof rig)['dovecot'];

beforeAll(async () => {
  rig = await databaseFaultRig({
    users: { ada: PASSWORD },
    seed: (d) =>
      seedMaildir({
        maildir: d.maildirOf('ada'),
        messages: [1, 2].map((i) => ({
          raw: buildMessage({
            from: { address: `s${String(i)}@example.org`, name: `Sender ${String(i)}` },
            to: [{ address: 'ada@example.test' }],
            subject: `Message ${String(i)}`,
            date: new Date(Date.UTC(2026, 9, i)),
            messageId: `<f${String(i)}@rig.test>`,
            text: `Body ${String(i)}`,
          }),
          flags: [],
          internalDate: new Date(Date.UTC(2026, 9, i)),
        })),
      }),
  });
  ({ call, db, dovecot } = rig);
  await db.query(`create function refuse() returns trigger language plpgsql as $$
    begin raise exception 'relation "messages": disk quota exceeded on tablespace pg_secret'; end $$`);
}, 60_000);

afterAll(async () => {
  await rig.close();
});

/** The account's undo handles that name this message, and whether each was used. */
async function handlesNaming(messageId: string): Promise<{ id: string; used: boolean }[]> {
  const r = await db.query<{ id: string; used_at: string | null; entries_json: string }>(
    'select id, used_at, entries_json from undo_records',
  );
  return r.rows
    .filter((row) =>
      (JSON.parse(row.entries_json) as { messageId: string }[]).some((e) => e.messageId === messageId),
    )
    .map((row) => ({ id: row.id, used: row.used_at !== null }));
}

let inboxId: string;

it('an IMAP move the index could not record: internal_error, and the handle still puts it back', async () => {
  inboxId = await connectImapInbox(rig.app, call, { dovecot, user: 'ada', password: PASSWORD });
  const before = await mailboxState(dovecot, 'ada', PASSWORD);
  const [first, second] = expectToolOk(await call('list_messages', { inboxId }))['messages'] as {
    messageId: string;
  }[];
  await db.query(`create trigger refuse before update of folder_id on messages
    for each row when (old.folder_id is distinct from new.folder_id) execute function refuse()`);
  const items = [first!, second!].map((m) => ({ inboxId, messageId: m.messageId }));
  const r = expectToolError(await call('act_on_messages', { action: 'archive', items }), 'internal_error');
  expect(JSON.stringify(r)).not.toMatch(/pg_secret|quota|relation|mail/);
  expect(
    rig.lines.some((l) => l.startsWith('error') && l.includes('"P0001"') && l.includes('act_on_messages')),
  ).toBe(true);
  await db.query('drop trigger refuse on messages');
  // Dovecot moved both; the handle written ahead of the change names both.
  const moved = await mailboxState(dovecot, 'ada', PASSWORD);
  expect(moved.filter((row) => row.startsWith('Archive |'))).toHaveLength(2);
  const [handle] = await handlesNaming(first!.messageId);
  expect(handle).toEqual({ id: expect.any(String), used: false });
  expect(await handlesNaming(second!.messageId)).toEqual([handle]);
  // The index may still place them in the inbox (it did, and the undo said "already back" and left them in Archive),
  // or a sync may have dropped them from it since: either way the undo finds them in Archive by their Message-IDs.
  const undone = expectToolOk(await call('undo_action', { undoId: handle!.id }));
  expect(undone['notRestored']).toEqual([]);
  expect(await mailboxState(dovecot, 'ada', PASSWORD)).toEqual(before);
  expectToolOk(await call('sync_inbox', { inboxId }));
  const listed = expectToolOk(await call('list_messages', { inboxId }))['messages'] as { subject: string }[];
  expect(listed.map((m) => m.subject).sort()).toEqual(['Message 1', 'Message 2']);
}, 60_000);

it('a flag change the index could not record: internal_error, and the handle unflags at the mailbox', async () => {
  expectToolOk(await call('sync_inbox', { inboxId }));
  const before = await mailboxState(dovecot, 'ada', PASSWORD);
  const [first] = expectToolOk(await call('list_messages', { inboxId }))['messages'] as {
    messageId: string;
  }[];
  await db.query(`create trigger refuse_flags before update of starred on messages
    for each row execute function refuse()`);
  expectToolError(
    await call('act_on_messages', { action: 'star', items: [{ inboxId, messageId: first!.messageId }] }),
    'internal_error',
  );
  await db.query('drop trigger refuse_flags on messages');
  expect(await mailboxState(dovecot, 'ada', PASSWORD)).not.toEqual(before);
  const handles = (await handlesNaming(first!.messageId)).filter((h) => !h.used);
  expect(handles).toHaveLength(1);
  expectToolOk(await call('undo_action', { undoId: handles[0]!.id }));
  expect(await mailboxState(dovecot, 'ada', PASSWORD)).toEqual(before);
}, 60_000);

/** The demo inbox, synced, and its newest message. */
async function newestDemoMessage(): Promise<{ demoId: string; m: { messageId: string } }> {
  const demoId = ((await call('list_inboxes')).body['inboxes'] as { id: string; isDemo?: boolean }[]).find(
    (i) => i.isDemo === true,
  )!.id;
  expectToolOk(await call('sync_inbox', { inboxId: demoId }));
  const [m] = expectToolOk(await call('list_messages', { inboxId: demoId, limit: 1 }))['messages'] as {
    messageId: string;
  }[];
  return { demoId, m: m! };
}

it('the demo mailbox failing on our database is ours too: internal_error, nothing left to undo', async () => {
  const { demoId, m } = await newestDemoMessage();
  await db.query(
    'create trigger refuse_demo before insert or update or delete on demo_messages for each row execute function refuse()',
  );
  expectToolError(
    await call('act_on_messages', {
      action: 'archive',
      items: [{ inboxId: demoId, messageId: m.messageId }],
    }),
    'internal_error',
  );
  await db.query('drop trigger refuse_demo on demo_messages');
  expect(await handlesNaming(m.messageId)).toEqual([]);
  expectToolOk(
    await call('act_on_messages', {
      action: 'archive',
      items: [{ inboxId: demoId, messageId: m.messageId }],
    }),
  );
}, 60_000);

it('an undo the index says is already back asks the mailbox: the demo move it never recorded is put back', async () => {
  const { demoId, m } = await newestDemoMessage();
  const trash = async () =>
    (
      await db.query<{ n: number }>(
        "select count(*)::int as n from demo_messages where folder_path = 'Trash'",
      )
    ).rows[0]!.n;
  const trashBefore = await trash();
  await db.query(`create trigger refuse_index before update of folder_id on messages
    for each row when (old.folder_id is distinct from new.folder_id) execute function refuse()`);
  expectToolError(
    await call('act_on_messages', { action: 'trash', items: [{ inboxId: demoId, messageId: m.messageId }] }),
    'internal_error',
  );
  await db.query('drop trigger refuse_index on messages');
  expect(await trash()).toBe(trashBefore + 1);
  const [handle] = await handlesNaming(m.messageId);
  const undone = expectToolOk(await call('undo_action', { undoId: handle!.id }));
  expect([undone['restored'], undone['notRestored']]).toEqual([
    [{ inboxId: demoId, messageId: m.messageId }],
    [],
  ]);
  expect(await trash()).toBe(trashBefore);
  // The index row now has the UID the message came back under: it reads, by the same id.
  const read = expectToolOk(await call('get_message', { inboxId: demoId, messageId: m.messageId }));
  expect(read['folder']).toBe('inbox');
}, 60_000);
