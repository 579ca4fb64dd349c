import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../../core/accounts/account-store.ts';
import { seedAccount } from '../../core/inboxes/inbox-store.contract.ts';
import { newId } from '../../lib/random.ts';
import type { AuthorizationCode, Grant, GrantStore, TokenRecord } from './grant.ts';
import { EVERYTHING } from '../../core/auth/allowed.ts';
import type { InboxId } from '../../core/inboxes/inbox.ts';

const t = (m: number) => new Date(Date.UTC(2030, 0, 1, 0, m));

export function grantStoreContract(h: () => { accounts: AccountStore; grants: GrantStore }): void {
  describe('GrantStore contract', () => {
    const code = (accountId: Grant['accountId']): AuthorizationCode => ({
      codeHash: newId('code'),
      clientId: 'client_a',
      accountId,
      redirectUri: 'http://127.0.0.1:9/callback',
      codeChallenge: 'x'.repeat(43),
      scope: ['mcp:tools'],
      resource: 'http://127.0.0.1:8787/mcp',
      createdAt: t(0),
      expiresAt: t(1),
      powers: null,
      inboxes: null,
    });
    const grant = (accountId: Grant['accountId'], clientId = 'client_a'): Grant => ({
      id: newId('grant'),
      accountId,
      clientId,
      scope: ['mcp:tools'],
      resource: 'http://127.0.0.1:8787/mcp',
      createdAt: t(0),
      lastUsedAt: null,
      revokedAt: null,
      powers: null,
      inboxes: null,
    });
    const tokens = (g: Grant, at = 0): TokenRecord[] => [
      { hash: newId('ta'), kind: 'access', grantId: g.id, createdAt: t(at), expiresAt: t(at + 60) },
      { hash: newId('tr'), kind: 'refresh', grantId: g.id, createdAt: t(at), expiresAt: t(at + 600) },
    ];

    /** A sign-in as the token endpoint makes one: its code saved, then its grant with its first tokens. */
    const signedIn = async (acct: Grant['accountId'], clientId = 'client_a') => {
      const g = grant(acct, clientId);
      const first = tokens(g);
      const c = code(acct);
      await h().grants.saveCode(c);
      await h().grants.createGrant(g, first, c.codeHash);
      return { g, first };
    };

    it('carries the consent’s powers and inboxes from code to grant; changes them per client, live sign-ins only (0141, 0142)', async () => {
      const acct = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      const work = 'inbox_aaaaaaaaaaaaaaaaaaaa' as InboxId;
      const c = { ...code(acct), powers: new Set(['draft'] as const), inboxes: new Set([work]) };
      await h().grants.saveCode(c);
      const redeemed = await h().grants.redeemCode(c.codeHash, t(0));
      expect(redeemed.status === 'ok' && redeemed.code.powers).toEqual(new Set(['draft']));
      expect(redeemed.status === 'ok' && redeemed.code.inboxes).toEqual(new Set([work]));
      const g = { ...grant(acct), powers: new Set(['draft'] as const), inboxes: new Set([work]) };
      const first = tokens(g);
      await h().grants.createGrant(g, first, c.codeHash);
      expect((await h().grants.findLiveToken(first[0]!.hash, 'access', t(0)))?.grant).toMatchObject({
        powers: new Set(['draft']),
        inboxes: new Set([work]),
      });
      const second = await signedIn(acct);
      const ended = await signedIn(acct);
      await h().grants.revokeGrant(ended.g.id, t(1));
      const elsewhere = await signedIn(acct, 'client_b');
      const theirs = await signedIn(other);
      expect(
        await h().grants.setClientAllowed(acct, 'client_a', { powers: new Set(['tidy']), inboxes: null }),
      ).toBe(2);
      const powersOf = async (hash: string) =>
        (await h().grants.findLiveToken(hash, 'access', t(0)))?.grant.powers;
      expect(await powersOf(first[0]!.hash)).toEqual(new Set(['tidy']));
      expect(await powersOf(second.first[0]!.hash)).toEqual(new Set(['tidy']));
      expect(await powersOf(elsewhere.first[0]!.hash)).toBeNull();
      expect(await powersOf(theirs.first[0]!.hash)).toBeNull();
      expect((await h().grants.findLiveToken(first[0]!.hash, 'access', t(0)))?.grant.inboxes).toBeNull();
      expect(await h().grants.setClientAllowed(acct, 'client_c', EVERYTHING)).toBe(0);
    });

    it('redeems a code exactly once under concurrency; a replay names the grant it produced', async () => {
      const acct = await seedAccount(h().accounts);
      const c = code(acct);
      await h().grants.saveCode(c);
      const results = await Promise.all(
        Array.from({ length: 8 }, () => h().grants.redeemCode(c.codeHash, t(0))),
      );
      expect(results.filter((r) => r.status === 'ok')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'replayed')).toHaveLength(7);
      // The seven replays came before the grant: it is never created.
      expect(await h().grants.createGrant(grant(acct), [], c.codeHash)).toBe(false);

      const later = code(acct);
      await h().grants.saveCode(later);
      expect((await h().grants.redeemCode(later.codeHash, t(0))).status).toBe('ok');
      const g = grant(acct);
      expect(await h().grants.createGrant(g, tokens(g), later.codeHash)).toBe(true);
      expect(await h().grants.redeemCode(later.codeHash, t(0))).toEqual({
        status: 'replayed',
        grantId: g.id,
      });
    });

    it('creates no grant when the code is replayed between its redemption and the grant', async () => {
      const acct = await seedAccount(h().accounts);
      const c = code(acct);
      await h().grants.saveCode(c);
      expect((await h().grants.redeemCode(c.codeHash, t(0))).status).toBe('ok');
      expect(await h().grants.redeemCode(c.codeHash, t(0))).toEqual({ status: 'replayed', grantId: null });
      const g = grant(acct);
      const issued = tokens(g);
      expect(await h().grants.createGrant(g, issued, c.codeHash)).toBe(false);
      expect(await h().grants.listGrants(acct)).toEqual([]);
      for (const tk of issued) expect(await h().grants.findLiveToken(tk.hash, tk.kind, t(0))).toBeUndefined();
      // Later replays still find nothing to name, and the code never yields a grant.
      expect(await h().grants.redeemCode(c.codeHash, t(0))).toEqual({ status: 'replayed', grantId: null });
      expect(await h().grants.createGrant(grant(acct), [], c.codeHash)).toBe(false);
    });

    it('links a code to one grant only', async () => {
      const acct = await seedAccount(h().accounts);
      const c = code(acct);
      await h().grants.saveCode(c);
      expect((await h().grants.redeemCode(c.codeHash, t(0))).status).toBe('ok');
      const g = grant(acct);
      expect(await h().grants.createGrant(g, tokens(g), c.codeHash)).toBe(true);
      expect(await h().grants.createGrant(grant(acct), [], c.codeHash)).toBe(false);
      expect((await h().grants.listGrants(acct)).map((x) => x.id)).toEqual([g.id]);
    });

    it('refuses an expired or unknown code', async () => {
      const acct = await seedAccount(h().accounts);
      const c = code(acct);
      await h().grants.saveCode(c);
      expect(await h().grants.redeemCode(c.codeHash, t(2))).toEqual({ status: 'invalid' });
      expect(await h().grants.redeemCode('nope', t(0))).toEqual({ status: 'invalid' });
    });

    it('rotates a refresh token exactly once; every later presentation is reuse', async () => {
      const acct = await seedAccount(h().accounts);
      const { g, first } = await signedIn(acct);
      const refresh = first[1]!.hash;
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, (_, i) => h().grants.rotateRefresh(refresh, tokens(g, 1 + i), t(1))),
      );
      expect(outcomes.filter((o) => o.status === 'rotated')).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === 'reused')).toHaveLength(5);
      expect(await h().grants.rotateRefresh(refresh, [], t(2))).toEqual({ status: 'reused', grantId: g.id });
    });

    it("finds a rotation whose answer may be given again: by its pair's hashes, for a duplicate or while unused, while that pair lives", async () => {
      const acct = await seedAccount(h().accounts);
      const { g, first } = await signedIn(acct);
      const old = first[1]!.hash;
      const pair = tokens(g, 1);
      const hashes = { accessHash: pair[0]!.hash, refreshHash: pair[1]!.hash };
      expect((await h().grants.rotateRefresh(old, pair, t(1))).status).toBe('rotated');
      const after = (ms: number) => new Date(t(1).getTime() + ms);
      /** Presented `ms` after the rotation, received `receivedMs` after it (negative: before the rotation). */
      const found = (hash: string, ms: number, receivedMs = ms, names = hashes) =>
        h().grants.replayableRotation(hash, names, after(ms), {
          receivedAt: after(receivedMs),
          withinMs: 60_000,
        });
      expect(await found(old, 5_000)).toEqual({ grant: g, accessExpiresAt: t(61) });
      expect(await found(old, 59_000)).toBeDefined(); // never used: the answer may have been lost
      expect(await found(old, 61_000, -1)).toBeUndefined(); // past the minute, however early received
      // Only the pair that rotation issued; a live token never rotated is not a rotation at all.
      expect(await found(old, 5_000, 5_000, { ...hashes, accessHash: first[0]!.hash })).toBeUndefined();
      expect(await found(pair[1]!.hash, 5_000)).toBeUndefined();
      // Once the pair is used: only a presentation received no later than the rotation (a concurrent duplicate).
      await h().grants.markUsed(pair[0]!.hash, after(1_000));
      expect(await found(old, 9_000, -5)).toBeDefined();
      expect(await found(old, 9_000, 0)).toBeDefined();
      expect(await found(old, 9_000, 1)).toBeUndefined();
      // Not once the pair is rotated on, nor when the sign-in is revoked.
      const next = tokens(g, 2).map((tk) => ({ ...tk, createdAt: after(2_000) })); // made by that rotation
      expect((await h().grants.rotateRefresh(pair[1]!.hash, next, after(2_000))).status).toBe('rotated');
      expect(await found(old, 3_000, -5)).toBeUndefined();
      const again = { accessHash: next[0]!.hash, refreshHash: next[1]!.hash };
      expect(await found(pair[1]!.hash, 3_000, 3_000, again)).toBeDefined();
      await h().grants.revokeGrant(g.id, after(3_000));
      expect(await found(pair[1]!.hash, 4_000, 1_000, again)).toBeUndefined();
    });

    it('finds live tokens only: not expired, not revoked, not of a revoked grant', async () => {
      const acct = await seedAccount(h().accounts);
      const { g, first } = await signedIn(acct);
      const [access, refresh] = first;
      expect(await h().grants.findLiveToken(access!.hash, 'access', t(1))).toMatchObject({
        grant: { id: g.id },
      });
      expect(await h().grants.findLiveToken(access!.hash, 'refresh', t(1))).toBeUndefined();
      expect(await h().grants.findLiveToken(access!.hash, 'access', t(61))).toBeUndefined();
      await h().grants.revokeToken(access!.hash, t(2));
      expect(await h().grants.findLiveToken(access!.hash, 'access', t(3))).toBeUndefined();
      expect(await h().grants.findLiveToken(refresh!.hash, 'refresh', t(3))).toBeDefined();
      await h().grants.revokeGrant(g.id, t(4));
      expect(await h().grants.findLiveToken(refresh!.hash, 'refresh', t(5))).toBeUndefined();
    });

    it('removes what is spent in a sweep: expired codes and tokens, sign-ins revoked or left without a token', async () => {
      const at = (m: number) => t(100_000 + m);
      await h().grants.deleteSpent(at(0)); // what the tests before this one left
      const acct = await seedAccount(h().accounts);
      const pair = (g: Grant, from: number): TokenRecord[] => [
        { hash: newId('ta'), kind: 'access', grantId: g.id, createdAt: at(from), expiresAt: at(from + 60) },
        { hash: newId('tr'), kind: 'refresh', grantId: g.id, createdAt: at(from), expiresAt: at(from + 600) },
      ];
      /** A sign-in at at(0): its code expires at at(1), its tokens at at(60) and at(600). */
      const made = async () => {
        const g = { ...grant(acct), createdAt: at(0) };
        const c = { ...code(acct), createdAt: at(0), expiresAt: at(1) };
        const first = pair(g, 0);
        await h().grants.saveCode(c);
        expect(await h().grants.createGrant(g, first, c.codeHash)).toBe(true);
        return { g, refresh: first[1]! };
      };
      const kept = await made();
      const revoked = await made();
      const dead = await made(); // never refreshed: nothing of it outlives at(600)
      const next = pair(kept.g, 100);
      expect((await h().grants.rotateRefresh(kept.refresh.hash, next, at(100))).status).toBe('rotated');
      await h().grants.revokeGrant(revoked.g.id, at(100));

      // The codes and the first access tokens; nothing revoked before at(100).
      expect(await h().grants.deleteSpent(at(100))).toEqual({ codes: 3, tokens: 3, grants: 0 });
      // A refresh token rotated away is kept while it would have lived: presented, it still reveals a stolen copy.
      expect(await h().grants.rotateRefresh(kept.refresh.hash, [], at(599))).toEqual({
        status: 'reused',
        grantId: kept.g.id,
      });
      expect((await h().grants.listGrants(acct)).map((g) => g.id).sort()).toEqual(
        [kept.g.id, dead.g.id].sort(),
      );

      // The three first refresh tokens and the second access token; the revoked sign-in and the one left with none.
      expect(await h().grants.deleteSpent(at(601))).toEqual({ codes: 0, tokens: 4, grants: 2 });
      expect((await h().grants.listGrants(acct)).map((g) => g.id)).toEqual([kept.g.id]);
      expect(await h().grants.rotateRefresh(kept.refresh.hash, [], at(602))).toEqual({ status: 'invalid' });
      expect(await h().grants.findLiveToken(next[1]!.hash, 'refresh', at(650))).toMatchObject({
        grant: { id: kept.g.id },
      });
      expect(await h().grants.deleteSpent(at(601))).toEqual({ codes: 0, tokens: 0, grants: 0 });
    });

    it('lists and revokes grants per account and per client', async () => {
      const acct = await seedAccount(h().accounts);
      const other = await seedAccount(h().accounts);
      for (const [a, client] of [
        [acct, 'client_a'],
        [acct, 'client_a'],
        [acct, 'client_b'],
        [other, 'client_a'],
      ] as const) {
        await signedIn(a, client);
      }
      expect(await h().grants.listGrants(acct)).toHaveLength(3);
      expect(await h().grants.revokeClientGrants(acct, 'client_a', t(1))).toBe(2);
      expect((await h().grants.listGrants(acct)).map((g) => g.clientId)).toEqual(['client_b']);
      expect(await h().grants.revokeAllGrants(acct, t(2))).toBe(1);
      expect(await h().grants.listGrants(other)).toHaveLength(1);
    });
  });
}
