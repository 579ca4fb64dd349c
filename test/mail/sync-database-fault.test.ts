import { afterAll, beforeAll, expect, it } from 'vitest';
import { appendViaImap, buildMessage } from '../rig/index.ts';
import { databaseFaultRig } from '../support/database-fault-rig.ts';
import { connectImapInbox } from '../support/imap-inbox.ts';
import { expectToolError, expectToolOk } from '../support/tool-caller.ts';

// A sync that fails on our own database is not the mailbox's failure. It was answered provider_error "The mailbox
// could not be synced right now: <the database's words>", and the same words became the inbox's sync status.
const PASSWORD = 'a long enough password';
let rig: Awaited<ReturnType<typeof databaseFaultRig>>;
let call: (typeof rig)['call'];
let db: (typeof rig)['db'];

beforeAll(async () => {
  rig = await databaseFaultRig({ users: { ada: PASSWORD } });
  ({ call, db } = rig);
}, 60_000);

afterAll(async () => {
  await rig.close();
});

it('answers internal_error, logs the database’s error, and leaves the inbox’s status alone', async () => {
  const inboxId = ((await call('list_inboxes')).body['inboxes'] as { id: string }[])[0]!.id;
  // The database itself refuses: every change to a folder row fails, as a full disk or a broken constraint would.
  await db.query(`create function refuse() returns trigger language plpgsql as $$
    begin raise exception 'relation "folders": disk quota exceeded on tablespace pg_secret'; end $$`);
  await db.query('create trigger refuse before update on folders for each row execute function refuse()');
  const r = expectToolError(
    await call('sync_inbox', { inboxId, folders: ['inbox', 'sent'] }),
    'internal_error',
  );
  expect(JSON.stringify(r)).not.toMatch(/pg_secret|quota|relation/);
  const inbox = ((await call('list_inboxes')).body['inboxes'] as Record<string, unknown>[])[0]!;
  expect(JSON.stringify(inbox)).not.toMatch(/pg_secret|quota|relation/);
  // Logged at error level with the database's error (the raised exception's code), for the operator.
  expect(
    rig.lines.some((l) => l.startsWith('error') && l.includes('"P0001"') && l.includes('sync_inbox')),
  ).toBe(true);
  await db.query('drop trigger refuse on folders');
  expect((await call('sync_inbox', { inboxId, folders: ['inbox', 'sent'] })).isError).toBe(false);
}, 60_000);

it('on an IMAP inbox too, when the index write of new mail fails in the middle of the FETCH', async () => {
  // The IMAP session turned whatever its callback threw into "the mail server refused" (provider_error).
  const inboxId = await connectImapInbox(rig.app, call, {
    dovecot: rig.dovecot,
    user: 'ada',
    password: PASSWORD,
  });
  await db.query(`create function refuse_mail() returns trigger language plpgsql as $$
    begin raise exception 'relation "messages": disk quota exceeded on tablespace pg_secret'; end $$`);
  await db.query(
    'create trigger refuse_mail before insert on messages for each row execute function refuse_mail()',
  );
  await appendViaImap({
    host: '127.0.0.1',
    port: rig.dovecot.port,
    user: 'ada',
    password: PASSWORD,
    messages: [
      {
        raw: buildMessage({
          from: { address: 'someone@example.org', name: 'Someone' },
          to: [{ address: 'ada@example.test' }],
          subject: 'New while the index refuses',
          date: new Date(),
          messageId: '<new-while-refused@rig.test>',
          text: 'Hello',
        }),
      },
    ],
  });
  const r = expectToolError(await call('sync_inbox', { inboxId }), 'internal_error');
  expect(JSON.stringify(r)).not.toMatch(/pg_secret|quota|relation|mail server/);
  await db.query('drop trigger refuse_mail on messages');
  expectToolOk(await call('sync_inbox', { inboxId }));
  const listed = expectToolOk(await call('list_messages', { inboxId }));
  expect((listed['messages'] as { subject: string }[]).map((m) => m.subject)).toContain(
    'New while the index refuses',
  );
}, 60_000);
