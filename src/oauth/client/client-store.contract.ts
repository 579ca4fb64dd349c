import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../../core/accounts/account-store.ts';
import { seedAccount } from '../../core/inboxes/inbox-store.contract.ts';
import { newId, randomToken } from '../../lib/random.ts';
import type { RequestStore } from '../request/authorization-request.ts';
import type { GrantStore } from '../token/grant.ts';
import type { ClientStore, OAuthClient } from './client.ts';

const t = new Date(Date.UTC(2030, 0, 1));

export const newClient = (o: Partial<OAuthClient> = {}): OAuthClient => ({
  clientId: `cl_${randomToken(20)}`,
  kind: 'dynamic',
  clientName: 'Claude — Zoë’s laptop',
  clientUri: 'https://claude.ai',
  redirectUris: ['http://127.0.0.1:6274/callback', 'http://localhost:6274/callback'],
  tokenEndpointAuthMethod: 'none',
  secretHash: null,
  createdAt: t,
  ...o,
});

/** Registered and metadata-document clients (RFC 7591, CIMD). */
export function clientStoreContract(
  h: () => { accounts: AccountStore; clients: ClientStore; requests: RequestStore; grants: GrantStore },
): void {
  const store = () => h().clients;
  describe('ClientStore contract', () => {
    it('round-trips every field of both kinds, redirect URIs in order', async () => {
      const dynamic = newClient({
        tokenEndpointAuthMethod: 'client_secret_basic',
        secretHash: 'a'.repeat(64),
      });
      const cimd = newClient({
        clientId: `https://client.example/${randomToken(8)}/metadata.json`,
        kind: 'metadata_document',
        clientUri: null,
        redirectUris: ['https://client.example/b', 'https://client.example/a'],
      });
      for (const c of [dynamic, cimd]) {
        await store().save(c);
        expect(await store().get(c.clientId)).toEqual(c);
      }
    });

    it('saving the same client id again replaces it (a re-fetched metadata document)', async () => {
      const c = newClient();
      await store().save(c);
      const refreshed = { ...c, clientName: 'Renamed', redirectUris: ['http://127.0.0.1/callback'] };
      await store().save(refreshed);
      expect(await store().get(c.clientId)).toEqual(refreshed);
    });

    it('an unknown client id is not found', async () => {
      expect(await store().get('cl_nobody')).toBeUndefined();
    });

    // Decision 0122: anyone may register, so registrations nothing names are removed — and only those.
    it('removes the clients registered before a time that no sign-in, code or waiting request names', async () => {
      // Earlier than any other test's clients, so the count is this test's alone.
      const at = (day: number) => new Date(Date.UTC(2020, 0, day));
      const accountId = await seedAccount(h().accounts);
      const registered = async (day: number, kind: OAuthClient['kind'] = 'dynamic') => {
        const c = newClient({
          createdAt: at(day),
          kind,
          ...(kind === 'metadata_document' && { clientId: `https://client.example/${randomToken(8)}` }),
        });
        await store().save(c);
        return c.clientId;
      };
      const unused = [await registered(1), await registered(1, 'metadata_document')];
      const recent = await registered(3);
      const waiting = await registered(1);
      await h().requests.save({
        id: newId('req'),
        clientId: waiting,
        redirectUri: 'http://127.0.0.1:9/callback',
        state: null,
        codeChallenge: 'c'.repeat(43),
        scope: ['mcp:tools'],
        resource: 'http://127.0.0.1:8787/mcp',
        createdAt: at(1),
        expiresAt: at(4),
      });
      const code = (clientId: string, ends: number) => ({
        codeHash: newId('code'),
        clientId,
        accountId,
        redirectUri: 'http://127.0.0.1:9/callback',
        codeChallenge: 'x'.repeat(43),
        scope: ['mcp:tools'],
        resource: 'http://127.0.0.1:8787/mcp',
        createdAt: at(1),
        expiresAt: at(ends),
        powers: null,
        inboxes: null,
      });
      const coded = await registered(1);
      await h().grants.saveCode(code(coded, 5));
      // A sign-in whose code the sweep has removed names its client for as long as it is kept.
      const signedIn = await registered(1);
      const c = code(signedIn, 1);
      await h().grants.saveCode(c);
      const grant = {
        id: newId('grant'),
        accountId,
        clientId: signedIn,
        scope: ['mcp:tools'],
        resource: 'http://127.0.0.1:8787/mcp',
        createdAt: at(1),
        lastUsedAt: null,
        revokedAt: null,
        powers: null,
        inboxes: null,
      };
      const refresh = { hash: newId('tr'), kind: 'refresh' as const, grantId: grant.id, createdAt: at(1) };
      await h().grants.createGrant(grant, [{ ...refresh, expiresAt: at(10) }], c.codeHash);
      expect((await h().grants.deleteSpent(at(2))).codes).toBeGreaterThanOrEqual(1);

      expect(await store().deleteUnused(at(2))).toBe(unused.length);
      for (const id of unused) expect(await store().get(id)).toBeUndefined();
      for (const id of [recent, waiting, coded, signedIn]) expect(await store().get(id)).toBeDefined();
      // Once the sweep has removed the sign-in and the code, their clients go too; the waiting one once its request has.
      expect((await h().grants.deleteSpent(at(11))).grants).toBeGreaterThanOrEqual(1);
      expect(await h().requests.deleteExpired(at(4))).toBeGreaterThanOrEqual(1);
      expect(await store().deleteUnused(at(2))).toBe(3);
      expect(await store().get(recent)).toBeDefined();
    });
  });
}
