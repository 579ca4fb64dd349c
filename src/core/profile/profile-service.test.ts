import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../settings/settings-store.ts';
import { readable } from './profile-service.ts';
import { DEFAULT_PROFILE } from './triage-profile.ts';

const INBOX = 'inbox_aaaaaaaaaaaaaaaaaaaa';

// A profile stored by another version of the service (or edited by hand) that this version's schema no longer takes
// whole: each part that does not fit is left out alone, and the person's safeguards in the rest are kept.
describe('a stored profile read by this version', () => {
  it('keeps every part that fits, and leaves out only what does not', () => {
    const stored = {
      defaults: {
        colour: 'red',
        cadence: { everyHours: 0 },
        junk: {
          blockedDomains: ['ok.test', 'not a domain', 'good.test', 'x y'],
          knownGoodSenders: ['a@b.test'],
        },
        vip: { people: ['boss@corp.test'] },
        sending: { requireInAppConfirmation: true },
      },
      inboxes: {
        'not-an-inbox': { cadence: { everyHours: 2 } },
        [INBOX]: { sending: { requireInAppConfirmation: 'yes' }, vip: { people: ['cfo@corp.test'] } },
      },
    } satisfies JsonValue;
    expect(readable(stored)).toEqual({
      defaults: {
        ...DEFAULT_PROFILE.defaults,
        junk: {
          ...DEFAULT_PROFILE.defaults.junk,
          blockedDomains: ['ok.test', 'good.test'],
          knownGoodSenders: ['a@b.test'],
        },
        vip: { people: ['boss@corp.test'] },
        sending: { requireInAppConfirmation: true },
      },
      inboxes: { [INBOX]: { sending: {}, vip: { people: ['cfo@corp.test'] } } },
    });
  });

  it('a value that is no profile at all reads as the defaults; nothing stored reads as the defaults', () => {
    expect(readable('a string')).toEqual(DEFAULT_PROFILE);
    expect(readable([1, 2])).toEqual(DEFAULT_PROFILE);
    expect(readable(undefined)).toEqual(DEFAULT_PROFILE);
    expect(readable({ defaults: 'x' })).toEqual(DEFAULT_PROFILE);
  });
});
