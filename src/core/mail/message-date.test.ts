import { describe, expect, it } from 'vitest';
import { messageDate } from './message-date.ts';

const at = (iso: string) => new Date(iso);
const ARRIVED = at('2026-11-29T10:00:00Z');

describe('messageDate', () => {
  it('is the Date header, earlier or up to a day later than the arrival', () => {
    expect(messageDate(at('2020-01-01T00:00:00Z'), ARRIVED)).toEqual(at('2020-01-01T00:00:00Z'));
    expect(messageDate(at('2026-11-30T10:00:00Z'), ARRIVED)).toEqual(at('2026-11-30T10:00:00Z'));
  });

  it('is the arrival for a header more than a day ahead, or none', () => {
    expect(messageDate(at('2026-11-30T10:00:01Z'), ARRIVED)).toEqual(ARRIVED);
    expect(messageDate(at('9999-12-31T23:59:59Z'), ARRIVED)).toEqual(ARRIVED);
    expect(messageDate(undefined, ARRIVED)).toEqual(ARRIVED);
  });

  it('keeps the header when the arrival is unknown, and falls back to the epoch with neither', () => {
    expect(messageDate(at('2099-01-01T00:00:00Z'), undefined)).toEqual(at('2099-01-01T00:00:00Z'));
    expect(messageDate(undefined, undefined)).toEqual(new Date(0));
  });
});
