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
});
