import { describe, expect, it } from 'vitest';
import { ARCHIVE, GmailFolders, listSelector, moveLabels } from './gmail-folders.ts';

const labels = new GmailFolders([
  { id: 'INBOX', name: 'INBOX', type: 'system' },
  { id: 'SPAM', name: 'SPAM', type: 'system' },
  { id: 'TRASH', name: 'TRASH', type: 'system' },
  { id: 'Label_1', name: 'Receipts', type: 'user' },
  { id: 'Label_2', name: 'Screened', type: 'user' },
  { id: 'Label_3', name: 'Work/screened', type: 'user' },
]);

describe('Gmail labels as folders', () => {
  it('mail in Spam or Trash is in those only, whatever other labels it kept (as messages.list shows it)', () => {
    expect(labels.holds('INBOX', ['INBOX', 'UNREAD'])).toBe(true);
    expect(labels.holds('INBOX', ['SPAM', 'INBOX'])).toBe(false);
    expect(labels.holds('SPAM', ['SPAM', 'INBOX'])).toBe(true);
    expect(labels.holds('Label_1', ['TRASH', 'Label_1'])).toBe(false);
    expect(labels.holds('TRASH', ['TRASH', 'Label_1'])).toBe(true);
    expect(labels.holds(ARCHIVE, ['Label_1'])).toBe(true);
    expect(labels.holds(ARCHIVE, ['SPAM'])).toBe(false);
    // The listing leaves Spam and Trash out of every other folder too.
    expect(listSelector('INBOX')).toEqual({ labelIds: ['INBOX'] });
  });

  it('mail carrying both SPAM and TRASH is in Trash only, by labels and by the listing', () => {
    expect(labels.holds('SPAM', ['SPAM', 'TRASH'])).toBe(false);
    expect(labels.holds('TRASH', ['SPAM', 'TRASH'])).toBe(true);
    expect(labels.holds('INBOX', ['INBOX', 'SPAM', 'TRASH'])).toBe(false);
    expect(listSelector('SPAM')).toEqual({ labelIds: ['SPAM'], q: '-label:TRASH' });
    expect(listSelector('TRASH')).toEqual({ labelIds: ['TRASH'] });
  });

  it('screened mail is in Screened, not in Archive, and the listing of Archive leaves it out by name', () => {
    expect(labels.folders().filter((f) => f.canonical === 'screened')).toEqual([
      { path: 'Label_2', name: 'Screened', canonical: 'screened' },
    ]);
    expect(labels.holds('Label_2', ['Label_2'])).toBe(true);
    expect(labels.holds(ARCHIVE, ['Label_2'])).toBe(false);
    expect(labels.holds(ARCHIVE, ['Label_2', 'Label_1'])).toBe(false);
    // A nested label that merely ends in the name is an ordinary label, archived like any other.
    expect(labels.holds(ARCHIVE, ['Label_3'])).toBe(true);
    expect(listSelector(ARCHIVE).q?.split(' ')).toContain('-label:screened');
    // A mailbox without a Screened label archives every message outside the system folders.
    expect(
      new GmailFolders([{ id: 'Label_1', name: 'Receipts', type: 'user' }]).holds(ARCHIVE, ['Label_1']),
    ).toBe(true);
  });

  it('a move leaves the source label and takes the destination one', () => {
    expect(moveLabels('INBOX', 'SPAM')).toEqual({ add: ['SPAM'], remove: ['INBOX'] });
    expect(moveLabels(ARCHIVE, 'INBOX')).toEqual({ add: ['INBOX'], remove: [] });
    expect(moveLabels('INBOX', ARCHIVE)).toEqual({ add: [], remove: ['INBOX'] });
  });
});
