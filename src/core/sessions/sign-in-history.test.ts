import { describe, expect, it } from 'vitest';
import type { AccountId } from '../accounts/account.ts';
import { passwordMayBeKnown, type SignInEvent } from './sign-in-history.ts';

const ACCOUNT = 'acct_x' as AccountId;
const HOME = { ip: '198.51.100.7', userAgent: 'Firefox on Linux' };
const AWAY = { ip: '203.0.113.66', userAgent: 'Chrome on Windows' };
const at = (minute: number) => new Date(Date.UTC(2030, 0, 1, 12, minute));
/** A history as the store gives it: newest first. */
const history = (...events: [number, SignInEvent['kind'], typeof HOME][]): SignInEvent[] =>
  events.map(([m, kind, from]) => ({ at: at(m), accountId: ACCOUNT, kind, ...from })).reverse();

describe('whether someone else may know the password', () => {
  it('a wrong code after the right password, never made good, says so: the latest such', () => {
    expect(passwordMayBeKnown(history([1, 'wrong_code', AWAY]))).toMatchObject({ at: at(1), ...AWAY });
    expect(
      passwordMayBeKnown(
        history([1, 'wrong_code', AWAY], [2, 'signed_in_with_code', HOME], [3, 'wrong_code', AWAY]),
      ),
    ).toMatchObject({ at: at(3) });
  });

  it('the person’s own slip, made good from the same browser within ten minutes, does not', () => {
    expect(
      passwordMayBeKnown(history([1, 'wrong_code', HOME], [2, 'signed_in_with_code', HOME])),
    ).toBeUndefined();
    expect(
      passwordMayBeKnown(history([1, 'wrong_code', HOME], [9, 'signed_in_with_recovery_code', HOME])),
    ).toBeUndefined();
    expect(passwordMayBeKnown(history([1, 'wrong_code', HOME], [3, 'two_step_off', HOME]))).toBeUndefined();
  });

  it('a right code from elsewhere, later than ten minutes, or a sign-in without one does not make it good', () => {
    expect(
      passwordMayBeKnown(history([1, 'wrong_code', AWAY], [2, 'signed_in_with_code', HOME])),
    ).toBeDefined();
    expect(
      passwordMayBeKnown(history([1, 'wrong_code', HOME], [12, 'signed_in_with_code', HOME])),
    ).toBeDefined();
    expect(passwordMayBeKnown(history([1, 'wrong_code', HOME], [2, 'signed_in', HOME]))).toBeDefined();
    expect(
      passwordMayBeKnown(
        history([1, 'wrong_code', HOME], [2, 'wrong_password', HOME], [3, 'two_step_on', HOME]),
      ),
    ).toBeDefined();
  });

  it('a new password after it settles it, whoever set it', () => {
    expect(
      passwordMayBeKnown(history([1, 'wrong_code', AWAY], [30, 'password_changed', HOME])),
    ).toBeUndefined();
    expect(
      passwordMayBeKnown(history([1, 'wrong_code', AWAY], [30, 'password_reset', HOME])),
    ).toBeUndefined();
    expect(
      passwordMayBeKnown(
        history([1, 'wrong_code', AWAY], [30, 'password_changed', HOME], [40, 'wrong_code', AWAY]),
      ),
    ).toMatchObject({ at: at(40) });
    expect(passwordMayBeKnown([])).toBeUndefined();
  });
});
