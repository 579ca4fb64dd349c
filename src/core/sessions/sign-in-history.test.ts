import { describe, expect, it } from 'vitest';
import type { AccountId } from '../accounts/account.ts';
import { attemptsBefore, passwordMayBeKnown, type SignInEvent } from './sign-in-history.ts';

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
    // An IPv6 host picks a new address in its /64 by itself: the same place (decision 0111).
    const v6 = (ip: string) => ({ ip, userAgent: HOME.userAgent });
    expect(
      passwordMayBeKnown(
        history(
          [1, 'wrong_code', v6('2001:db8:5:6::a1')],
          [2, 'signed_in_with_code', v6('2001:db8:5:6:f00::2')],
        ),
      ),
    ).toBeUndefined();
    expect(
      passwordMayBeKnown(
        history([1, 'wrong_code', v6('2001:db8:5:7::a1')], [2, 'signed_in_with_code', v6('2001:db8:5:6::2')]),
      ),
    ).toBeDefined();
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

describe('what was tried between the previous sign-in and this one', () => {
  const opened = (minute: number) => new Date(at(minute).getTime() + 50);

  it('counts wrong passwords and codes from elsewhere since the previous sign-in, its addresses most frequent first', () => {
    const h = history(
      [0, 'wrong_password', AWAY],
      [1, 'signed_in', HOME],
      [2, 'wrong_password', AWAY],
      [3, 'wrong_password', { ip: '192.0.2.9', userAgent: 'curl' }],
      [4, 'api_key_created', HOME],
      [5, 'wrong_code', AWAY],
      [6, 'wrong_password', AWAY],
      [40, 'signed_in_with_code', HOME],
    );
    expect(attemptsBefore(h, opened(40))).toEqual({
      since: at(1),
      wrongPasswords: 3,
      wrongCodes: 1,
      addresses: [AWAY.ip, '192.0.2.9'],
    });
  });

  it('leaves out the person’s own slips on the way in: the same address and browser, in the ten minutes before', () => {
    const slips = history(
      [1, 'signed_in', HOME],
      [31, 'wrong_password', HOME],
      [35, 'wrong_code', HOME],
      [40, 'signed_in_with_code', HOME],
    );
    expect(attemptsBefore(slips, opened(40))).toBeUndefined();
    // Earlier than that, or from another browser at the same address, it counts.
    const older = history(
      [1, 'signed_in', HOME],
      [20, 'wrong_password', HOME],
      [39, 'wrong_password', { ip: HOME.ip, userAgent: 'Another browser' }],
      [40, 'signed_in', HOME],
    );
    expect(attemptsBefore(older, opened(40))).toMatchObject({ wrongPasswords: 2, addresses: [HOME.ip] });
  });

  it('speaks of the sign-in that opened the session, not of a later one from another browser', () => {
    const h = history(
      [1, 'signed_in', HOME],
      [2, 'wrong_password', AWAY],
      [10, 'signed_in', HOME],
      [11, 'wrong_password', AWAY],
      [12, 'signed_in', AWAY],
    );
    expect(attemptsBefore(h, opened(10))).toMatchObject({ since: at(1), wrongPasswords: 1 });
  });

  it('says nothing for a session that began without a sign-in, nor when nothing was tried', () => {
    const h = history([1, 'wrong_password', AWAY], [2, 'signed_in', HOME]);
    expect(attemptsBefore(h, opened(2))).toMatchObject({ since: null, wrongPasswords: 1 });
    expect(attemptsBefore(h, opened(5))).toBeUndefined();
    expect(
      attemptsBefore(history([1, 'signed_in', HOME], [2, 'signed_in', HOME]), opened(2)),
    ).toBeUndefined();
    expect(attemptsBefore([], opened(2))).toBeUndefined();
  });
});
