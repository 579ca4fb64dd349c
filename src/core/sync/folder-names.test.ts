import { describe, expect, it } from 'vitest';
import type { Folder, FolderId } from '../messages/folder.ts';
import type { InboxId } from '../inboxes/inbox.ts';
import { resolveFolder } from './folder-names.ts';

const folder = (path: string, name = path, canonical: Folder['canonical'] = null): Folder => ({
  id: `fld_${path.replace(/\W/g, '') || 'x'}` as FolderId,
  inboxId: 'inbox_1' as InboxId,
  path,
  name,
  canonical,
  selected: false,
  sync: {} as Folder['sync'],
});

describe('resolveFolder', () => {
  const inbox = folder('INBOX', 'Inbox', 'inbox');
  const spaced = folder('  spaced  ');
  const work = folder('Work');
  const workTypo = folder('Work ');
  const nested = folder('Projects/2026 "Q1"', '2026 "Q1"');
  const folders = [inbox, spaced, work, workTypo, nested];

  it('takes a canonical id, an id, a path or a name (names in any case)', () => {
    expect(resolveFolder(folders, 'inbox')).toBe(inbox);
    expect(resolveFolder(folders, work.id)).toBe(work);
    expect(resolveFolder(folders, 'Projects/2026 "Q1"')).toBe(nested);
    expect(resolveFolder(folders, '2026 "q1"')).toBe(nested);
    expect(resolveFolder(folders, 'nowhere')).toBeUndefined();
  });

  it('takes a name with outer spaces as given before trimming it', () => {
    expect(resolveFolder(folders, '  spaced  ')).toBe(spaced);
    expect(resolveFolder(folders, 'spaced')).toBeUndefined();
    expect(resolveFolder(folders, 'Work ')).toBe(workTypo);
    expect(resolveFolder(folders, 'Work')).toBe(work);
    expect(resolveFolder(folders, ' work  ')).toBe(work); // no folder is called that: the trimmed name is
  });
});
