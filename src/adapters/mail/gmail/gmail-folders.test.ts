import { describe, expect, it } from 'vitest';
import { ARCHIVE, inFolder, listSelector, moveLabels } from './gmail-folders.ts';

describe('Gmail labels as folders', () => {
  it('mail in Spam or Trash is in those only, whatever other labels it kept (as messages.list shows it)', () => {
    expect(inFolder('INBOX', ['INBOX', 'UNREAD'])).toBe(true);
    expect(inFolder('INBOX', ['SPAM', 'INBOX'])).toBe(false);
    expect(inFolder('SPAM', ['SPAM', 'INBOX'])).toBe(true);
    expect(inFolder('Label_1', ['TRASH', 'Label_1'])).toBe(false);
    expect(inFolder('TRASH', ['TRASH', 'Label_1'])).toBe(true);
    expect(inFolder(ARCHIVE, ['Label_1'])).toBe(true);
    expect(inFolder(ARCHIVE, ['SPAM'])).toBe(false);
    // The listing leaves Spam and Trash out of every other folder too.
    expect(listSelector('INBOX')).toEqual({ labelIds: ['INBOX'] });
  });

  it('a move leaves the source label and takes the destination one', () => {
    expect(moveLabels('INBOX', 'SPAM')).toEqual({ add: ['SPAM'], remove: ['INBOX'] });
    expect(moveLabels(ARCHIVE, 'INBOX')).toEqual({ add: ['INBOX'], remove: [] });
    expect(moveLabels('INBOX', ARCHIVE)).toEqual({ add: [], remove: ['INBOX'] });
  });
});
