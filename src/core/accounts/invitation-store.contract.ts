import { describe, expect, it } from 'vitest';
import { newId } from '../../lib/random.ts';
import type { InvitationStore } from './invitation-store.ts';

const t = (h: number) => new Date(Date.UTC(2030, 0, 1, h));

export function invitationStoreContract(store: () => InvitationStore): void {
  describe('InvitationStore contract', () => {
    it('is found while live and consumed exactly once under concurrency', async () => {
      const idHash = newId('inv');
      await store().create({ idHash, email: 'friend@example.test', createdAt: t(0), expiresAt: t(5) });
      expect(await store().findLive(idHash, t(1))).toMatchObject({ email: 'friend@example.test' });
      const wins = await Promise.all(Array.from({ length: 8 }, () => store().consume(idHash, t(1))));
      expect(wins.filter(Boolean)).toHaveLength(1);
      expect(await store().findLive(idHash, t(1))).toBeUndefined();
    });

    it('cannot be found or consumed after expiry', async () => {
      const idHash = newId('inv');
      await store().create({ idHash, email: null, createdAt: t(0), expiresAt: t(5) });
      expect(await store().findLive(idHash, t(5))).toBeUndefined();
      expect(await store().consume(idHash, t(6))).toBe(false);
    });

    // Decision 0117: an invited address is not kept once its invitation is spent or has ended.
    it('is gone once consumed, and swept once expired; a live one stays', async () => {
      const [spent, ended, live] = [newId('inv'), newId('inv'), newId('inv')];
      for (const idHash of [spent, ended, live])
        await store().create({
          idHash,
          email: `${idHash}@example.test`,
          createdAt: t(0),
          expiresAt: idHash === ended ? t(2) : t(8),
        });
      expect(await store().consume(spent, t(1))).toBe(true);
      expect(await store().deleteExpired(t(3))).toBeGreaterThanOrEqual(1);
      expect(await store().consume(ended, t(1))).toBe(false);
      expect(await store().findLive(live, t(3))).toMatchObject({ email: `${live}@example.test` });
    });
  });
}
