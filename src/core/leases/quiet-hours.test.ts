import { describe, expect, it } from 'vitest';
import { quietUntil } from './quiet-hours.ts';

describe('quiet hours', () => {
  const night = { start: '22:00', end: '07:00', timezone: 'Europe/Berlin' };

  it('wraps midnight in the person’s time zone and ends at the local end time', () => {
    // 23:30 in Berlin (CET, UTC+1) on 15 January.
    expect(quietUntil(new Date('2030-01-15T22:30:00Z'), night)).toEqual(new Date('2030-01-16T06:00:00Z'));
    // 03:10 in Berlin.
    expect(quietUntil(new Date('2030-01-16T02:10:00Z'), night)).toEqual(new Date('2030-01-16T06:00:00Z'));
    // 07:00 sharp is no longer quiet; 21:59 is not yet.
    expect(quietUntil(new Date('2030-01-16T06:00:00Z'), night)).toBeUndefined();
    expect(quietUntil(new Date('2030-01-16T20:59:00Z'), night)).toBeUndefined();
  });

  it('follows summer time (CEST, UTC+2)', () => {
    expect(quietUntil(new Date('2030-07-15T20:30:00Z'), night)).toEqual(new Date('2030-07-16T05:00:00Z'));
  });

  it('a window within one day, and an empty one', () => {
    const lunch = { start: '12:00', end: '13:30', timezone: 'UTC' };
    expect(quietUntil(new Date('2030-01-01T12:45:30Z'), lunch)).toEqual(new Date('2030-01-01T13:30:00Z'));
    expect(quietUntil(new Date('2030-01-01T13:30:00Z'), lunch)).toBeUndefined();
    expect(
      quietUntil(new Date('2030-01-01T12:00:00Z'), { start: '12:00', end: '12:00', timezone: 'UTC' }),
    ).toBeUndefined();
  });

  it('ends at the local end time on the nights summer time starts and ends', () => {
    // 23:00 CET on 30 March 2030; clocks go from 02:00 to 03:00: 07:00 CEST is 05:00Z, eight hours on.
    expect(quietUntil(new Date('2030-03-30T22:00:00Z'), night)).toEqual(new Date('2030-03-31T05:00:00Z'));
    // 23:00 CEST on 26 October 2030; clocks go from 03:00 back to 02:00: 07:00 CET is 06:00Z, ten hours on.
    expect(quietUntil(new Date('2030-10-26T21:00:00Z'), night)).toEqual(new Date('2030-10-27T06:00:00Z'));
    // New York, 21:00–06:30: 2 March 2031 is no change; 9 March 2031 is (EST to EDT at 02:00).
    const ny = { start: '21:00', end: '06:30', timezone: 'America/New_York' };
    expect(quietUntil(new Date('2031-03-09T03:00:00Z'), ny)).toEqual(new Date('2031-03-09T10:30:00Z'));
  });

  it('an end in the hour spring skips falls on the first minute after it', () => {
    const gap = { start: '22:00', end: '02:30', timezone: 'Europe/Berlin' };
    // 23:00 CET on 30 March 2030: 02:30 does not exist that night; 03:30 CEST (01:30Z) is when quiet is over.
    const until = quietUntil(new Date('2030-03-30T22:00:00Z'), gap)!;
    expect(until).toEqual(new Date('2030-03-31T01:30:00Z'));
    expect(quietUntil(until, gap)).toBeUndefined();
  });
});
