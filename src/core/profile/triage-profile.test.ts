import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE, deepMerge, effectivePrefs, TRIAGE_PROFILE } from './triage-profile.ts';

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
});
