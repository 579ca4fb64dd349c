import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVERY_MAILBOX, type Backend } from '../support/mail-backends.ts';
import { expectToolOk } from '../support/tool-caller.ts';

// Decision 0146: a label an agent applies that the mailbox lacks is made — on Gmail, a label in the person's list. Its
// undo took it off the messages and left the name behind: "each change undoable" held for the mail, not the list.

describe.each(Object.entries(EVERY_MAILBOX))('an undo on %s', (name, start) => {
  // Only Gmail keeps a list a label is added to by using it; keywords and categories live on the messages.
  const listsLabels = name === 'Gmail';
  let be: Backend;
  let inboxId: string;
  let ids: string[];
  const call = (tool: string, args: Record<string, unknown>) => be.agent.call(tool, args);
  const labelList = async () =>
    (expectToolOk(await call('list_labels', { inboxId }))['labels'] as { name: string }[]).map((l) => l.name);
  const label = async (messageId: string, labelIds: string[]) =>
    expectToolOk(await call('apply_labels', { inboxId, messageIds: [messageId], labelIds }))[
      'undoId'
    ] as string;
  const undo = async (undoId: string) => expectToolOk(await call('undo_action', { undoId }));
  const labelsOf = async (messageId: string) =>
    expectToolOk(await call('get_message', { inboxId, messageId }))['labels'] as string[];

  beforeAll(async () => {
    be = await start();
    inboxId = be.inboxId;
    expectToolOk(await call('sync_inbox', { inboxId }));
    const listed = expectToolOk(await call('list_messages', { inboxId, limit: 3 }));
    ids = (listed['messages'] as { messageId: string }[]).map((m) => m.messageId);
    expect(ids).toHaveLength(3);
  }, 120_000);
  afterAll(() => be.close());

  it('takes a label its change made off the label list once no message carries it', async () => {
    const made = await label(ids[0]!, ['Trip-0146']);
    expect(await labelList()).toContain('Trip-0146');
    const undone = await undo(made);
    expect(undone['labelsRemoved']).toEqual(listsLabels ? ['Trip-0146'] : undefined);
    if (listsLabels) expect(undone['sayToHuman']).toContain('(“Trip-0146”) is gone from your labels too');
    expect(await labelsOf(ids[0]!)).not.toContain('Trip-0146');
    expect(await labelList()).not.toContain('Trip-0146');
  });

  it('keeps a label its change made that other mail carries since', async () => {
    const made = await label(ids[0]!, ['Shared-0146']);
    await label(ids[1]!, ['Shared-0146']);
    const undone = await undo(made);
    expect(undone['labelsRemoved']).toBeUndefined();
    expect(await labelsOf(ids[0]!)).not.toContain('Shared-0146');
    expect(await labelsOf(ids[1]!)).toContain('Shared-0146');
    expect(await labelList()).toContain('Shared-0146');
  });

  it('keeps a label the mailbox had before the change, even when the undo leaves it on no message', async () => {
    const first = await label(ids[2]!, ['Before-0146']);
    const second = await label(ids[0]!, ['Before-0146']);
    expect((await undo(second))['labelsRemoved']).toBeUndefined();
    // The label's first change took it off the last message: the label was made by that change, and goes with it.
    expect((await undo(first))['labelsRemoved']).toEqual(listsLabels ? ['Before-0146'] : undefined);
    expect(await labelList()).not.toContain('Before-0146');
  });

  // Decisions 0148, 0149: every mailbox but the demo can lose a message from another client (the demo has no other
  // client); each says which messages a flag change found, so a gone one is told as gone (defined there alone).
  if (name !== 'demo') {
    /** A message delivered from outside and synced: its id in the index and its row in the mailbox. */
    const deliveredAndIndexed = async (subject: string, messageId: string) => {
      await be.outside!.deliver(
        Buffer.from(
          [
            'From: Someone <someone@elsewhere.example.test>',
            'To: me@example.test',
            `Subject: ${subject}`,
            `Message-ID: ${messageId}`,
            'Date: Tue, 01 Dec 2026 10:00:00 +0000',
            '',
            'Hello.',
            '',
          ].join('\r\n'),
        ),
      );
      expectToolOk(await call('sync_inbox', { inboxId }));
      const { id } = await be.app.db.kysely
        .selectFrom('messages')
        .select('id')
        .where('inbox_id', '=', inboxId)
        .where('subject', '=', subject)
        .executeTakeFirstOrThrow();
      const rows = (await be.mailbox()).filter((r) => r.messageId === messageId);
      expect(rows).toHaveLength(1);
      return { id, row: rows[0]! };
    };

    // A change the mailbox then made on no message (refused whole, or every message gone) has no undo handle to
    // take its label away later: it goes at once.
    it('takes away at once a label made for a change that reached no message', async () => {
      const { id, row } = await deliveredAndIndexed('Gone before the label 0146', '<gone0146@labels.test>');
      await be.outside!.remove(row);
      const answer = expectToolOk(
        await call('apply_labels', { inboxId, messageIds: [id], labelIds: ['Nowhere-0146'] }),
      );
      // Told as gone, not as labelled (the mailbox had nothing to label).
      expect(answer).toMatchObject({ changed: [], skipped: [{ messageId: id, reason: 'not_found' }] });
      expect(answer['undoId']).toBeNull();
      expect(await labelList()).not.toContain('Nowhere-0146');
    });

    it('an undo of a label on a message deleted since says it is gone, not restored', async () => {
      const { id, row } = await deliveredAndIndexed(
        'Deleted after the label 0148',
        '<deleted0148@labels.test>',
      );
      const made = await label(id, ['Later-0148']);
      await be.outside!.remove(row);
      const undone = await undo(made);
      expect(undone).toMatchObject({ restored: [], notRestored: [{ messageId: id, reason: 'gone' }] });
      // Gmail counts no message with it once the message is deleted: the label the change made goes.
      expect(undone['labelsRemoved']).toEqual(listsLabels ? ['Later-0148'] : undefined);
    });
  }

  // Only where the provider lists labels (defined there alone, not skipped elsewhere).
  if (listsLabels) {
    it('never takes away a label the person made, on no mail at all', async () => {
      // The rig made “Travel” from another client; no message carries it.
      expect(await labelList()).toContain('Travel');
      const undone = await undo(await label(ids[0]!, ['Travel']));
      expect(undone['labelsRemoved']).toBeUndefined();
      expect(await labelList()).toContain('Travel');
    });

    it('the person’s own undo on Activity says the label went too', async () => {
      const made = await label(ids[0]!, ['Console-0146']);
      const web = be.agent.web;
      await web.get('/settings/activity');
      const res = await web.post('/settings/activity/undo', { undoId: made });
      expect(res.status).toBe(303);
      const shown = await (await web.get(res.headers.get('location') ?? '')).text();
      expect(shown).toContain(
        'Undone: 1 message put back, and the label the change had made taken off your label list.',
      );
      expect(await labelList()).not.toContain('Console-0146');
    });
  }
});
