import { describe, expect, it } from 'vitest';
import type { InboxId } from '../inboxes/inbox.ts';
import {
  changeInboxScreeningList,
  changeScreeningList,
  DEFAULT_PROFILE,
  deepMerge,
  effectivePrefs,
  loosening,
  ownTriage,
  patchWithin,
  TRIAGE_PROFILE,
  type TriageProfile,
  withoutOwn,
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

  it('a screening list changed for one inbox: its own copy, from the defaults when it had none; nothing else moves', () => {
    const OTHER = 'inbox_bbbbbbbbbbbbbbbbbbbb';
    const base = TRIAGE_PROFILE.parse(
      deepMerge(DEFAULT_PROFILE, {
        defaults: { junk: { knownGoodSenders: ['a@x.test'] } },
        inboxes: {
          [OTHER]: { junk: { knownGoodSenders: ['b@x.test'] } },
          [INBOX]: { cadence: { everyHours: 2 } },
        },
      }),
    );
    const add = (l: readonly string[]) => [...l, 'c@x.test'];
    const one = changeInboxScreeningList(base, INBOX, 'knownGoodSenders', add);
    expect(one.defaults).toEqual(base.defaults);
    expect(one.inboxes[OTHER]).toEqual(base.inboxes[OTHER]);
    expect(one.inboxes[INBOX]).toEqual({
      cadence: { everyHours: 2 },
      junk: { knownGoodSenders: ['a@x.test', 'c@x.test'] },
    });
    // Later changes everywhere (the person's, a whole-account agent's) reach that copy too (decision 0116).
    const everywhere = changeScreeningList(one, 'knownGoodSenders', (l) => l.filter((a) => a !== 'a@x.test'));
    expect(effectivePrefs(everywhere, INBOX).junk.knownGoodSenders).toEqual(['c@x.test']);
    expect(everywhere.defaults.junk.knownGoodSenders).toEqual([]);
  });

  it('a patch within an agent’s inboxes: only overrides of inboxes it reaches; the defaults need every inbox', () => {
    const reach = new Set([INBOX as InboxId]);
    expect(patchWithin({ inboxes: { [INBOX]: { cadence: { everyHours: 2 } } } }, reach)).toBe(true);
    expect(patchWithin({ defaults: {} }, reach)).toBe(false);
    expect(patchWithin({ inboxes: { inbox_bbbbbbbbbbbbbbbbbbbb: {} } }, reach)).toBe(false);
    expect(patchWithin({ inboxes: { [INBOX]: {} }, defaults: { cadence: {} } }, new Set())).toBe(false);
    expect(patchWithin({ defaults: {} }, null)).toBe(true);
    // Not a patch the schema takes: left to it, refused as invalid_arguments with its path.
    expect(patchWithin({ inboxes: 'all' }, reach)).toBe(true);
    expect(patchWithin({ sideways: {} }, reach)).toBe(true);
  });

  it('an inbox’s own triage settings found apart from its lists, VIPs and sending; either dropped alone, the override when empty', () => {
    const OTHER = 'inbox_bbbbbbbbbbbbbbbbbbbb';
    const p = TRIAGE_PROFILE.parse(
      deepMerge(DEFAULT_PROFILE, {
        inboxes: {
          [INBOX]: {
            quietHours: null,
            junk: { notes: '', blockedSenders: ['a@x.test'] },
            vip: { people: ['b@x.test'] },
          },
          [OTHER]: { cadence: { everyHours: null } },
        },
      }),
    );
    expect(ownTriage(p.inboxes[INBOX]!)).toEqual({ quietHours: null, notes: '' });
    expect(ownTriage(p.inboxes[OTHER]!)).toEqual({ everyHours: null });
    expect(
      ownTriage({ junk: { blockedSenders: [] }, sending: { requireInAppConfirmation: true } }),
    ).toBeUndefined();
    const dropped = withoutOwn(withoutOwn(p, INBOX, 'triage'), OTHER, 'triage');
    expect(dropped.inboxes).toEqual({
      [INBOX]: { junk: { blockedSenders: ['a@x.test'] }, vip: { people: ['b@x.test'] } },
    });
    expect(dropped.defaults).toEqual(p.defaults);
    expect(withoutOwn(dropped, 'inbox_cccccccccccccccccccc', 'triage')).toBe(dropped);
    // The lists instead: the triage settings stay, quiet hours of none too.
    expect(withoutOwn(p, INBOX, 'lists').inboxes[INBOX]).toEqual({
      quietHours: null,
      junk: { notes: '' },
      vip: { people: ['b@x.test'] },
    });
    expect(withoutOwn(withoutOwn(dropped, INBOX, 'lists'), INBOX, 'lists').inboxes[INBOX]).toEqual({
      vip: { people: ['b@x.test'] },
    });
    expect(withoutOwn(p, OTHER, 'lists').inboxes[OTHER]).toEqual({ cadence: { everyHours: null } });
    expect(withoutOwn(withoutOwn(p, OTHER, 'lists'), OTHER, 'triage').inboxes[OTHER]).toBeUndefined();
  });
});
