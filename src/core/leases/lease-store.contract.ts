import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../accounts/account-store.ts';
import type { InboxStore } from '../inboxes/inbox-store.ts';
import { seedInbox } from '../messages/folder-store.contract.ts';
import type { Lease, LeaseStore } from './lease-store.ts';

const t = (s: number) => new Date(Date.UTC(2030, 0, 1, 0, 0, s));

export function leaseStoreContract(
  h: () => { accounts: AccountStore; inboxes: InboxStore; leases: LeaseStore },
): void {
  describe('LeaseStore contract', () => {
    const lease = (inboxId: string, holder: string, label = 'agent', at = 0, ttl = 300): Lease => ({
      inboxId,
      holder,
      agentLabel: label,
      startedAt: t(at),
      expiresAt: t(at + ttl),
    });

    it('is exclusive: of ten racing holders exactly one gets a free lease', async () => {
      const inbox = await seedInbox(h());
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => h().leases.acquire(lease(inbox, `key_${String(i)}`), t(0))),
      );
      expect(results.filter((r) => r.acquired)).toHaveLength(1);
      const winner = results.find((r) => r.acquired)!.lease.holder;
      expect(results.every((r) => r.lease.holder === winner)).toBe(true);
    });

    // Found by the safety model on Dovecot (2026-11-27, after decision 0033): a heartbeat that had to re-acquire met
    // the other agent's live lease, and that agent ended its pass before the lease could be read back — the read found
    // no row and the tool answered internal_error.
    it('safety model on Dovecot, 2026-11-27: an acquire racing the holder’s release never fails — it takes the freed lease or names the holder', async () => {
      const failures: string[] = [];
      for (let round = 0; round < 24; round++) {
        const inbox = await seedInbox(h());
        expect((await h().leases.acquire(lease(inbox, 'b'), t(0))).acquired).toBe(true);
        const ticks = round % 8;
        const [taken] = await Promise.all([
          h()
            .leases.acquire(lease(inbox, 'a', 'agent', 1), t(1))
            .catch((e: unknown) => {
              failures.push(`round ${String(round)}: ${e instanceof Error ? e.message : String(e)}`);
              return undefined;
            }),
          (async () => {
            for (let i = 0; i < ticks; i++) await Promise.resolve();
            await h().leases.release(inbox, 'b', 'agent', t(1), null, `pass_${String(round)}`);
          })(),
        ]);
        if (taken !== undefined && !taken.acquired) expect(taken.lease.holder).toBe('b');
      }
      expect(failures).toEqual([]);
    });

    it('ends a holder’s live lease at once, no pass recorded, and then lets another take it', async () => {
      const inbox = await seedInbox(h());
      expect((await h().leases.acquire(lease(inbox, 'gone'), t(0))).acquired).toBe(true);
      expect(await h().leases.endHeldBy(inbox, 'someone else', t(10))).toBe(false);
      expect((await h().leases.current(inbox, t(10)))?.holder).toBe('gone');
      expect(await h().leases.endHeldBy(inbox, 'gone', t(10))).toBe(true);
      expect(await h().leases.current(inbox, t(10))).toBeUndefined();
      expect(await h().leases.endHeldBy(inbox, 'gone', t(11))).toBe(false);
      expect(await h().leases.lastPass(inbox)).toBeUndefined();
      const taken = await h().leases.acquire(lease(inbox, 'next', 'agent', 10), t(10));
      expect(taken).toMatchObject({ acquired: true, lease: { holder: 'next' } });
    });

    it('the same holder and label acquiring concurrently at different times is told acquired every time', async () => {
      const inbox = await seedInbox(h());
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => h().leases.acquire(lease(inbox, 'a', 'agent', i), t(i))),
      );
      expect(results.map((r) => r.acquired)).toEqual(Array.from({ length: 6 }, () => true));
      expect(results.every((r) => r.lease.holder === 'a' && r.lease.agentLabel === 'agent')).toBe(true);
    });

    it('the same holder and label re-acquires (extends); another waits until expiry, then takes over', async () => {
      const inbox = await seedInbox(h());
      expect((await h().leases.acquire(lease(inbox, 'a'), t(0))).acquired).toBe(true);
      const again = await h().leases.acquire(lease(inbox, 'a', 'agent', 10), t(10));
      expect(again).toMatchObject({ acquired: true, lease: { startedAt: t(0), expiresAt: t(310) } });
      expect((await h().leases.acquire(lease(inbox, 'a', 'other-label', 20), t(20))).acquired).toBe(false);
      expect((await h().leases.acquire(lease(inbox, 'b', 'agent', 20), t(20))).acquired).toBe(false);
      expect((await h().leases.acquire(lease(inbox, 'b', 'agent', 310), t(310))).acquired).toBe(true);
      expect(await h().leases.current(inbox, t(311))).toMatchObject({ holder: 'b' });
    });

    it('extends only the holder’s live lease; releasing records the pass with its summary', async () => {
      const inbox = await seedInbox(h());
      await h().leases.acquire(lease(inbox, 'a'), t(0));
      expect(await h().leases.extend(inbox, 'b', 'agent', t(5), t(400))).toBeUndefined();
      expect(await h().leases.extend(inbox, 'a', 'agent', t(5), t(400))).toMatchObject({ expiresAt: t(400) });
      expect(await h().leases.release(inbox, 'b', 'agent', t(6), null, 'pass_x')).toBe(false);
      expect(
        await h().leases.release(inbox, 'a', 'agent', t(7), 'Archived 12 newsletters', `pass_${inbox}`),
      ).toBe(true);
      expect(await h().leases.current(inbox, t(8))).toBeUndefined();
      expect(await h().leases.lastPass(inbox)).toEqual({
        inboxId: inbox,
        agentLabel: 'agent',
        startedAt: t(0),
        endedAt: t(7),
        summary: 'Archived 12 newsletters',
      });
      expect(await h().leases.extend(inbox, 'a', 'agent', t(9), t(500))).toBeUndefined();
    });

    it('of concurrent releases of one lease exactly one succeeds and records the only pass', async () => {
      const inbox = await seedInbox(h());
      await h().leases.acquire(lease(inbox, 'a'), t(0));
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          h().leases.release(
            inbox,
            'a',
            'agent',
            t(10 + i),
            `summary ${String(i)}`,
            `pass_${inbox}_${String(i)}`,
          ),
        ),
      );
      expect(results.filter((r) => r)).toHaveLength(1);
      const winner = results.indexOf(true);
      // Every loser ends later than the winner would, so a stray pass from one of them would show up here.
      expect(await h().leases.lastPass(inbox)).toEqual({
        inboxId: inbox,
        agentLabel: 'agent',
        startedAt: t(0),
        endedAt: t(10 + winner),
        summary: `summary ${String(winner)}`,
      });
    });

    // Decision 0121: older passes go with the activity log's retention; each inbox's last stays, however old.
    it('deletes the passes that ended before a time, except each inbox’s last', async () => {
      const [busy, quiet] = [await seedInbox(h()), await seedInbox(h())];
      const pass = async (inbox: string, at: number) => {
        await h().leases.acquire(lease(inbox, 'a', 'agent', at, 5), t(at));
        expect(
          await h().leases.release(
            inbox,
            'a',
            'agent',
            t(at + 1),
            `at ${String(at)}`,
            `pass_${inbox}_${String(at)}`,
          ),
        ).toBe(true);
      };
      for (const at of [0, 10, 20, 40]) await pass(busy, at);
      await pass(quiet, 0);
      expect(await h().leases.deletePassesBefore(t(30))).toBeGreaterThanOrEqual(3);
      expect((await h().leases.lastPass(busy))?.summary).toBe('at 40');
      expect((await h().leases.lastPass(quiet))?.summary).toBe('at 0');
      await h().leases.deletePassesBefore(t(3600));
      expect((await h().leases.lastPass(busy))?.summary).toBe('at 40');
      expect((await h().leases.lastPass(quiet))?.summary).toBe('at 0');
    });
  });
}
