import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { OUT_OF_SPACE_WORDS } from '../../src/lib/out-of-space.ts';
import { buildMessage, seedMaildir, startDovecot, type Dovecot } from '../rig/index.ts';
import { databaseFaultRig } from '../support/database-fault-rig.ts';
import { connectImapInbox, mailboxState } from '../support/imap-inbox.ts';
import { bearer, call as httpCall, createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolError, expectToolOk } from '../support/tool-caller.ts';

// The disk under the service's database full (its logs grew, a backup landed beside it), decision 0079. Nothing can
// be recorded, so nothing is answered: every read needs its row in the activity log (decision 0056), and a change
// writes its undo handle before it touches the mailbox. The service says so in words an agent can pass on — "tell
// the person: whoever runs the service must free disk space" — where it said "try again later"; the mailbox is left
// as it was; and once space is freed everything works again, with nothing lost and the database intact.
const PASSWORD = 'a long enough password';
const mail = (i: number) =>
  buildMessage({
    from: { address: `s${String(i)}@example.org`, name: `Sender ${String(i)}` },
    to: [{ address: 'ada@example.test' }],
    subject: `Message ${String(i)}`,
    date: new Date(Date.UTC(2026, 9, 1 + (i % 28))),
    messageId: `<full${String(i)}@rig.test>`,
    text: `Body ${String(i)} `.repeat(200),
  });

describe('the disk under SQLite full', () => {
  // A small file system of its own (tmpfs, as root, as the test machines run), so that filling it touches nothing else.
  const dir = mkdtempSync('/tmp/disk-full-');
  const filler = join(dir, 'filler');
  let dovecot: Dovecot;
  let app: App;
  let key: string;
  let call: Awaited<ReturnType<typeof agentOn>>['call'];
  let inboxId: string;
  const fill = () => {
    const free = statfsSync(dir);
    writeFileSync(filler, Buffer.alloc(free.bavail * free.bsize));
  };

  beforeAll(async () => {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dir]);
    dovecot = await startDovecot({ users: { ada: PASSWORD } });
    await seedMaildir({
      maildir: dovecot.maildirOf('ada'),
      messages: Array.from({ length: 20 }, (_, i) => ({ raw: mail(i), flags: [], internalDate: new Date() })),
    });
    app = await createTestApp({
      config: { dataDir: dir, database: { kind: 'sqlite', path: join(dir, 'triage.db') } },
    });
    ({ key, call } = await agentOn(app));
    inboxId = await connectImapInbox(app, call, { dovecot, user: 'ada', password: PASSWORD });
  }, 60_000);

  afterAll(async () => {
    await app.close();
    await dovecot.stop();
    execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers in words an agent can pass on, changes nothing, and works again once space is freed', async () => {
    const listed = expectToolOk(await call('list_messages', { inboxId, limit: 50 }))['messages'] as {
      messageId: string;
    }[];
    expect(listed).toHaveLength(20);
    const mailbox = await mailboxState(dovecot, 'ada', PASSWORD);

    fill();
    for (const r of [
      await call('list_messages', { inboxId }),
      await call('act_on_messages', {
        action: 'trash',
        items: [{ inboxId, messageId: listed[0]!.messageId }],
      }),
      await call('create_draft', { inboxId, to: 'bob@example.test', subject: 'Hi', text: 'Hello' }),
    ])
      expect(expectToolError(r, 'internal_error')['message']).toBe(OUT_OF_SPACE_WORDS);
    const rest = await httpCall(app, '/api/inboxes', bearer(key));
    expect(rest.status).toBe(500);
    // The same words, whichever layer met the full disk first (the request budget's count, or the activity log's
    // row); the last-resort handler adds the request's id.
    const body = (await rest.json()) as { error: string; error_description: string };
    expect(body.error).toBe('internal_error');
    expect(body.error_description.startsWith(OUT_OF_SPACE_WORDS)).toBe(true);
    expect(await mailboxState(dovecot, 'ada', PASSWORD)).toEqual(mailbox); // nothing moved, no draft saved

    rmSync(filler);
    expect(expectToolOk(await call('list_messages', { inboxId, limit: 50 }))['messages']).toHaveLength(20);
    const trashed = expectToolOk(
      await call('act_on_messages', {
        action: 'trash',
        items: [{ inboxId, messageId: listed[0]!.messageId }],
      }),
    );
    expect(trashed['changed']).toHaveLength(1);
    const db = new Database(join(dir, 'triage.db'), { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });
});

describe('PostgreSQL out of disk', () => {
  let rig: Awaited<ReturnType<typeof databaseFaultRig>>;
  beforeAll(async () => {
    rig = await databaseFaultRig({ users: { ada: PASSWORD } });
    await rig.db.query(`create function full_disk() returns trigger language plpgsql as $$
      begin raise exception 'could not extend file "base/16384/2619": No space left on device' using errcode = 'disk_full'; end $$`);
  }, 60_000);
  afterAll(async () => {
    await rig.close();
  });

  it('says so in the same words', async () => {
    const inboxId = await connectImapInbox(rig.app, rig.call, {
      dovecot: rig.dovecot,
      user: 'ada',
      password: PASSWORD,
    });
    await rig.db.query(
      'create trigger full_disk before insert on audit_log for each row execute function full_disk()',
    );
    const r = expectToolError(await rig.call('list_messages', { inboxId }), 'internal_error');
    expect(r['message']).toBe(OUT_OF_SPACE_WORDS);
    expect(JSON.stringify(r)).not.toMatch(/base\/16384|extend file/);
    await rig.db.query('drop trigger full_disk on audit_log');
    expectToolOk(await rig.call('list_messages', { inboxId }));
  });
});
