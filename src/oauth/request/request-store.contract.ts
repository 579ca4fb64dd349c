import { describe, expect, it } from 'vitest';
import { randomToken } from '../../lib/random.ts';
import type { ClientStore } from '../client/client.ts';
import { newClient } from '../client/client-store.contract.ts';
import type { AuthorizationRequest, RequestStore } from './authorization-request.ts';

const at = (m: number) => new Date(Date.UTC(2030, 0, 1, 0, m));

/** Authorization requests waiting for the person's consent (10 minutes, used once). */
export function requestStoreContract(h: () => { clients: ClientStore; requests: RequestStore }): void {
  describe('RequestStore contract', () => {
    async function saved(o: Partial<AuthorizationRequest> = {}): Promise<AuthorizationRequest> {
      const client = newClient();
      await h().clients.save(client);
      const r: AuthorizationRequest = {
        id: `req_${randomToken(20)}`,
        clientId: client.clientId,
        redirectUri: client.redirectUris[0] ?? '',
        state: 'xyz',
        codeChallenge: 'c'.repeat(43),
        scope: ['mcp:tools'],
        resource: 'http://127.0.0.1:8787/mcp',
        createdAt: at(0),
        expiresAt: at(10),
        ...o,
      };
      await h().requests.save(r);
      return r;
    }

    it('round-trips a live request; an expired one is not found', async () => {
      const r = await saved();
      expect(await h().requests.get(r.id, at(5))).toEqual(r);
      const none = await saved({ state: null });
      expect(await h().requests.get(none.id, at(1))).toEqual(none);
      expect(await h().requests.get(r.id, at(10))).toBeUndefined();
    });

    it('removes the requests that have ended, and only those', async () => {
      // Later than any other test's requests, so the count is this test's alone.
      const ended = await saved({ createdAt: at(100), expiresAt: at(110) });
      const live = await saved({ createdAt: at(100), expiresAt: at(111) });
      await h().requests.deleteExpired(at(109));
      expect(await h().requests.deleteExpired(at(110))).toBe(1);
      expect(await h().requests.get(ended.id, at(100))).toBeUndefined();
      expect(await h().requests.get(live.id, at(110))).toEqual(live);
    });

    it('of 20 concurrent takes exactly one succeeds, and the request is gone after it', async () => {
      const r = await saved();
      const taken = await Promise.all(Array.from({ length: 20 }, () => h().requests.take(r.id)));
      expect(taken.filter(Boolean)).toHaveLength(1);
      expect(await h().requests.get(r.id, at(1))).toBeUndefined();
      expect(await h().requests.take('req_nobody')).toBe(false);
    });
  });
}
