import { describe, expect, it } from 'vitest';
import { randomToken } from '../../lib/random.ts';
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
export function clientStoreContract(store: () => ClientStore): void {
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
  });
}
