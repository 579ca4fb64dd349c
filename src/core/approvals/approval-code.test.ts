import { describe, expect, it } from 'vitest';
import type { AccountId } from '../accounts/account.ts';
import {
  checkApprovalCode,
  checkApprovalInApp,
  newApprovalCode,
  type CodeApproval,
  type CodeApprovalReader,
} from './approval-code.ts';

const ACCOUNT = 'acct_a' as AccountId;
const ID = 'ap_00000000000000000000';
const NOW = new Date('2026-11-27T12:00:00Z');
const RULE = { idShape: /^ap_[a-z0-9]{20}$/, maxWrongCodes: 3, now: NOW };

interface Row extends CodeApproval {
  attempts: number;
  status: string;
}

/** One approval in memory, with the store's locking rule (`locked` at the limit, only from `pending`). */
function reader(row: Row): CodeApprovalReader<Row> & { gets: number } {
  return {
    gets: 0,
    get(accountId, id) {
      this.gets++;
      return Promise.resolve(accountId === ACCOUNT && id === row.id ? { ...row } : undefined);
    },
    recordFailure(id, lockAfter) {
      if (id === row.id && row.status !== 'locked') {
        row.attempts++;
        if (row.attempts >= lockAfter && row.status === 'pending') row.status = 'locked';
      }
      return Promise.resolve(row.attempts);
    },
  };
}

describe('checkApprovalCode', () => {
  const { code, codeHash } = newApprovalCode();
  const approval = (over: Partial<Row> = {}): Row => ({
    id: ID,
    codeHash,
    attempts: 0,
    status: 'pending',
    expiresAt: new Date(NOW.getTime() + 60_000),
    error: null,
    ...over,
  });

  it('redeems a pending, unexpired approval with its code; the code itself is not what is kept', async () => {
    expect(code).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(codeHash).not.toContain(code);
    const r = await checkApprovalCode(reader(approval()), ACCOUNT, { id: ID, code }, RULE);
    expect(r).toMatchObject({ ok: true, approval: { id: ID } });
  });

  it('does not look up an id of another shape, nor find another account’s', async () => {
    const store = reader(approval());
    expect(await checkApprovalCode(store, ACCOUNT, { id: "ap_' or 1=1 --", code }, RULE)).toEqual({
      ok: false,
      reason: 'not_found',
    });
    expect(store.gets).toBe(0);
    const other = await checkApprovalCode(store, 'acct_b' as AccountId, { id: ID, code }, RULE);
    expect(other).toEqual({ ok: false, reason: 'not_found' });
  });

  it('counts wrong codes down to a lock, and a locked approval refuses even its right code', async () => {
    const store = reader(approval());
    const left: unknown[] = [];
    for (let i = 0; i < 3; i++)
      left.push(await checkApprovalCode(store, ACCOUNT, { id: ID, code: 'x'.repeat(24) }, RULE));
    expect(left).toEqual(
      [2, 1, 0].map((attemptsLeft) => ({ ok: false, reason: 'wrong_code', attemptsLeft })),
    );
    expect(await checkApprovalCode(store, ACCOUNT, { id: ID, code }, RULE)).toEqual({
      ok: false,
      reason: 'locked',
    });
  });

  it('tells that an approval was used or expired only to the holder of its code', async () => {
    const used = reader(approval({ status: 'sent' }));
    expect(await checkApprovalCode(used, ACCOUNT, { id: ID, code: 'y'.repeat(24) }, RULE)).toEqual({
      ok: false,
      reason: 'wrong_code',
      attemptsLeft: 2,
    });
    expect(await checkApprovalCode(used, ACCOUNT, { id: ID, code }, RULE)).toEqual({
      ok: false,
      reason: 'used',
      status: 'sent',
      error: null,
    });
    const expired = reader(approval({ expiresAt: NOW }));
    expect(await checkApprovalCode(expired, ACCOUNT, { id: ID, code: 'y'.repeat(24) }, RULE)).toMatchObject({
      reason: 'wrong_code',
    });
    expect(await checkApprovalCode(expired, ACCOUNT, { id: ID, code }, RULE)).toEqual({
      ok: false,
      reason: 'expired',
    });
  });
});

describe('checkApprovalInApp (the person, signed in: no code)', () => {
  const approval = (over: Partial<Row> = {}): Row => ({
    id: ID,
    codeHash: newApprovalCode().codeHash,
    attempts: 0,
    status: 'pending',
    expiresAt: new Date(NOW.getTime() + 60_000),
    error: null,
    ...over,
  });
  const inApp = (store: CodeApprovalReader<Row>, accountId = ACCOUNT, id = ID) =>
    checkApprovalInApp(store, accountId, id, { idShape: RULE.idShape, now: NOW });

  it('takes a pending, unexpired approval of the account; no other shape is looked up', async () => {
    const store = reader(approval());
    expect(await inApp(store)).toMatchObject({ ok: true, approval: { id: ID } });
    expect(await inApp(store, 'acct_b' as AccountId)).toEqual({ ok: false, reason: 'not_found' });
    const gets = store.gets;
    expect(await inApp(store, ACCOUNT, 'ap_x')).toEqual({ ok: false, reason: 'not_found' });
    expect(store.gets).toBe(gets);
  });

  it('refuses a used, locked or expired approval: the person’s click is no way around the lock', async () => {
    for (const status of ['sent', 'locked', 'discarded'])
      expect(await inApp(reader(approval({ status })))).toEqual({
        ok: false,
        reason: 'used',
        status,
        error: null,
      });
    expect(await inApp(reader(approval({ expiresAt: NOW })))).toEqual({ ok: false, reason: 'expired' });
  });
});
