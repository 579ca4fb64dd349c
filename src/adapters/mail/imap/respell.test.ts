import { describe, expect, it } from 'vitest';
import type { RemoteSummary } from '../../../core/mail/mail-types.ts';
import { respell } from './summary-fetch.ts';

// What the server's ENVELOPE could not spell (decision 0078), taken from the parsed source — and nothing more.
const summary = (o: Partial<RemoteSummary>): RemoteSummary => ({
  ref: '7',
  position: 7,
  unread: true,
  starred: false,
  labels: [],
  threadId: 't',
  internetMessageId: '<m@x>',
  subject: 'Caf\uFFFD',
  from: { address: 'jose@example.test', name: 'Jos\uFFFD' },
  to: [{ address: 'lea@example.test', name: 'L\uFFFDa' }],
  snippet: '',
  date: new Date(0),
  hasAttachments: false,
  size: 1,
  listId: null,
  listUnsubscribe: null,
  listUnsubscribePost: false,
  ...o,
});

describe('respell', () => {
  it('takes the subject and the names the source spells, for the same addresses', () => {
    const r = respell(summary({}), {
      subject: 'Café',
      from: { address: 'JOSE@example.test', name: 'José' },
      to: [{ address: 'lea@example.test', name: 'Léa' }],
    });
    expect([r.subject, r.from, r.to]).toEqual([
      'Café',
      { address: 'jose@example.test', name: 'José' },
      [{ address: 'lea@example.test', name: 'Léa' }],
    ]);
  });

  it('keeps the server’s addresses, and what the source cannot spell either or leaves empty', () => {
    const r = respell(summary({}), {
      subject: 'Caf\uFFFD',
      from: { address: 'mallory@example.test', name: 'Mallory' },
      to: [{ address: 'lea@example.test', name: '' }],
    });
    expect([r.subject, r.from, r.to]).toEqual([
      'Caf\uFFFD',
      { address: 'jose@example.test', name: 'Jos\uFFFD' },
      [{ address: 'lea@example.test', name: 'L\uFFFDa' }],
    ]);
  });

  it('changes nothing the server spelled', () => {
    const spelt = summary({ subject: 'Hello', from: { address: 'jose@example.test', name: 'Jose' } });
    const r = respell(spelt, {
      subject: 'Other',
      from: { address: 'jose@example.test', name: 'Other' },
      to: [],
    });
    expect([r.subject, r.from.name]).toEqual(['Hello', 'Jose']);
  });
});
