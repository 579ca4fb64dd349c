import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MailSession } from '../../src/core/mail/mail-ports.ts';
import { gmailHarness } from './gmail-harness.ts';

// Decision 0146: an undo takes a Gmail label its change made off the list once no message carries it — but a label
// the person has built on since is theirs, carried by no mail or not: a filter that gives it to mail to come, or a
// label nested under it.
describe('a label a change made, on Gmail, after the person built on it', () => {
  let h: Awaited<ReturnType<typeof gmailHarness>>;
  let s: MailSession;
  const other = { headers: { authorization: 'Bearer another-client' } };
  const idOf = async (name: string) =>
    ((await h.api.users.labels.list({ userId: 'me' }, other)).data.labels ?? []).find((l) => l.name === name)
      ?.id;

  beforeEach(async () => {
    h = await gmailHarness();
    s = await h.session();
  });
  afterEach(async () => {
    await s.close();
    await h.close();
  });

  it('stays while a filter the person made gives it, and goes once the filter is gone', async () => {
    expect(await s.makeLabels(['Invoices-0146'])).toEqual(['Invoices-0146']);
    const id = await idOf('Invoices-0146');
    const filter = await h.api.users.settings.filters.create(
      {
        userId: 'me',
        requestBody: { criteria: { from: 'billing@example.org' }, action: { addLabelIds: [id!] } },
      },
      other,
    );
    expect(await s.removeLabelIfUnused('Invoices-0146')).toBe(false);
    expect(await s.listLabels()).toContain('Invoices-0146');
    await h.api.users.settings.filters.delete({ userId: 'me', id: filter.data.id! }, other);
    expect(await s.removeLabelIfUnused('Invoices-0146')).toBe(true);
    expect(await idOf('Invoices-0146')).toBeUndefined();
  });

  it('stays while a label is nested under it', async () => {
    expect(await s.makeLabels(['Trips-0146'])).toEqual(['Trips-0146']);
    await h.api.users.labels.create({ userId: 'me', requestBody: { name: 'Trips-0146/Rome' } }, other);
    const fresh = await h.session(); // the person's label is new to the list a session keeps
    try {
      expect(await fresh.removeLabelIfUnused('Trips-0146')).toBe(false);
      expect(await fresh.listLabels()).toEqual(expect.arrayContaining(['Trips-0146', 'Trips-0146/Rome']));
    } finally {
      await fresh.close();
    }
  });

  it('is found by its name only, never by an id another label has', async () => {
    const travel = await h.api.users.labels.create(
      { userId: 'me', requestBody: { name: 'Travel-0146' } },
      other,
    );
    expect(await s.removeLabelIfUnused(travel.data.id!)).toBe(false);
    expect(await idOf('Travel-0146')).toBe(travel.data.id);
  });
});
