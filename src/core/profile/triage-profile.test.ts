import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PROFILE,
  deepMerge,
  effectivePrefs,
  loosening,
  TRIAGE_PROFILE,
  type TriageProfile,
} from './triage-profile.ts';

const INBOX = 'inbox_aaaaaaaaaaaaaaaaaaaa';

describe('triage profile', () => {
  it('deep-merges: objects recursively, arrays and scalars replace, null sets null', () => {
    const merged = deepMerge(DEFAULT_PROFILE, {
      defaults: { cadence: { everyHours: 2 }, junk: { blockedDomains: ['spam.test'] }, quietHours: null },
    });
    expect(merged).toEqual({
      ...DEFAULT_PROFILE,
      defaults: {
        ...DEFAULT_PROFILE.defaults,
        cadence: { everyHours: 2 },
        junk: { ...DEFAULT_PROFILE.defaults.junk, blockedDomains: ['spam.test'] },
      },
    });
    expect(TRIAGE_PROFILE.safeParse(merged).success).toBe(true);
    expect(deepMerge({ a: [1, 2] }, { a: [3] })).toEqual({ a: [3] });
  });

  it('the effective prefs of an inbox are the defaults with its override merged in', () => {
    const profile = TRIAGE_PROFILE.parse(
      deepMerge(DEFAULT_PROFILE, {
        inboxes: {
          [INBOX]: {
            cadence: { everyHours: 12 },
            quietHours: { start: '22:00', end: '07:00', timezone: 'Europe/Berlin' },
          },
        },
      }),
    );
    expect(effectivePrefs(profile, INBOX)).toEqual({
      ...DEFAULT_PROFILE.defaults,
      cadence: { everyHours: 12 },
      quietHours: { start: '22:00', end: '07:00', timezone: 'Europe/Berlin' },
    });
    expect(effectivePrefs(profile, 'inbox_bbbbbbbbbbbbbbbbbbbb')).toEqual(DEFAULT_PROFILE.defaults);
  });

  it.each([
    [{ defaults: { cadence: { everyHours: 0 } } }, 'defaults.cadence.everyHours'],
    [{ defaults: { cadense: {} } }, 'defaults'],
    [
      { defaults: { quietHours: { start: '25:00', end: '07:00', timezone: 'UTC' } } },
      'defaults.quietHours.start',
    ],
    [
      { defaults: { quietHours: { start: '22:00', end: '07:00', timezone: 'Mars/Olympus' } } },
      'defaults.quietHours.timezone',
    ],
    [{ defaults: { junk: { blockedDomains: ['not a domain'] } } }, 'defaults.junk.blockedDomains.0'],
    [{ inboxes: { 'not-an-inbox': {} } }, 'inboxes.not-an-inbox'],
    [{ inboxes: { [INBOX]: { colour: 'red' } } }, `inboxes.${INBOX}`],
    [JSON.parse('{"__proto__": {"polluted": true}}') as unknown, ''],
  ])('refuses %j (at %s)', (patch, path) => {
    const r = TRIAGE_PROFILE.safeParse(deepMerge(DEFAULT_PROFILE, patch));
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.'))).toContain(path);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  describe('loosening: what a new profile takes from the person’s safeguards (decision 0102)', () => {
    const OTHER = 'inbox_bbbbbbbbbbbbbbbbbbbb';
    const profile = (patch: unknown): TriageProfile =>
      TRIAGE_PROFILE.parse(deepMerge(DEFAULT_PROFILE, patch));
    const strict = profile({
      defaults: {
        sending: { requireInAppConfirmation: true },
        vip: { people: ['boss@corp.test', 'müller.de'] },
      },
      inboxes: { [INBOX]: { cadence: { everyHours: 1 } } },
    });
    const after = (patch: unknown) => loosening(strict, TRIAGE_PROFILE.parse(deepMerge(strict, patch)));
    const none = { inAppConfirmationOff: [], vipPeopleDropped: [] };

    it('turning in-app confirmation off counts where it takes effect: the defaults, and each inbox that follows them', () => {
      expect(after({ defaults: { sending: { requireInAppConfirmation: false } } })).toEqual({
        ...none,
        inAppConfirmationOff: ['defaults', INBOX],
      });
      expect(after({ inboxes: { [OTHER]: { sending: { requireInAppConfirmation: false } } } })).toEqual({
        ...none,
        inAppConfirmationOff: [OTHER],
      });
      // Off in the defaults while every inbox with an override keeps it: the inboxes without one still lose it.
      expect(
        after({
          defaults: { sending: { requireInAppConfirmation: false } },
          inboxes: { [INBOX]: { sending: { requireInAppConfirmation: true } } },
        }).inAppConfirmationOff,
      ).toEqual(['defaults']);
    });

    it('a VIP entry gone from the defaults or from one inbox’s list counts, in any spelling; one kept or added does not', () => {
      expect(after({ defaults: { vip: { people: ['müller.de'] } } }).vipPeopleDropped).toEqual([
        'boss@corp.test',
      ]);
      expect(
        after({ inboxes: { [OTHER]: { vip: { people: ['boss@corp.test'] } } } }).vipPeopleDropped,
      ).toEqual(['müller.de']);
      // The same entries spelt differently (case, Punycode, a trailing dot), and a new one: nothing lost.
      expect(
        after({ defaults: { vip: { people: [' BOSS@corp.test', 'xn--mller-kva.de.', 'new@corp.test'] } } }),
      ).toEqual(none);
      expect(after({ defaults: { cadence: { everyHours: null }, quietHours: null } })).toEqual(none);
      expect(after({ defaults: { sending: { requireInAppConfirmation: true } } })).toEqual(none);
    });

    it('an entry that is neither an address nor a domain protected nobody, so it may go', () => {
      const odd = profile({ defaults: { vip: { people: ['boss', 'a@b.test'] } } });
      expect(loosening(odd, profile({ defaults: { vip: { people: ['a@b.test'] } } }))).toEqual(none);
    });
  });
});
