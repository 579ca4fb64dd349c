import { describe, expect, it, vi } from 'vitest';
import { fixedClock } from '../../lib/clock.ts';
import { DatabaseClock, type ClockReading } from './database-clock.ts';

const T0 = new Date('2030-01-01T00:00:00Z');

/** A database whose clock is `offsetMs` from the machine's, answering after the given round trips in turn. */
function database(machine: ReturnType<typeof fixedClock>, offsetMs: number, trips: number[]) {
  let i = 0;
  return async () => {
    const trip = trips[i++ % trips.length]!;
    // The server reads its clock at the middle of the trip, which the measurement assumes.
    machine.advance(trip / 2);
    const at = machine.now().getTime() + offsetMs;
    machine.advance(trip / 2);
    return Promise.resolve(at);
  };
}

describe('DatabaseClock', () => {
  it("keeps the database server's time: the machine's clock plus the offset measured", async () => {
    const machine = fixedClock(T0);
    const clock = new DatabaseClock({ machine, readings: (use) => use(database(machine, -3_600_000, [4])) });
    expect(clock.now().getTime()).toBe(machine.now().getTime());
    expect(await clock.measure()).toEqual({ offsetMs: -3_600_000, roundTripMs: 4 });
    expect(clock.now().getTime()).toBe(machine.now().getTime() - 3_600_000);
    machine.advance(10_000);
    expect(clock.now().getTime()).toBe(machine.now().getTime() - 3_600_000);
  });

  it('keeps the reading with the shortest round trip of three', async () => {
    const machine = fixedClock(T0);
    let i = 0;
    // The second reply was delayed on its way back (400 ms after the server read its clock): the most uncertain.
    const skewed = async () => {
      const lag = [
        [5, 5],
        [1, 400],
        [2, 2],
      ][i++]!;
      machine.advance(lag[0]!);
      const at = machine.now().getTime() + 250;
      machine.advance(lag[1]!);
      return Promise.resolve(at);
    };
    const clock = new DatabaseClock({ machine, readings: (use) => use(skewed) });
    expect(await clock.measure()).toEqual({ offsetMs: 250, roundTripMs: 4 });
  });

  it('tells of every reading with the one before, and keeps the last offset when a measurement fails', async () => {
    const machine = fixedClock(T0);
    let offset = 2_000;
    let down = false;
    const seen: [ClockReading, ClockReading | undefined][] = [];
    const clock = new DatabaseClock({
      machine,
      readings: (use) =>
        use(() =>
          down ? Promise.reject(new Error('away')) : Promise.resolve(machine.now().getTime() + offset),
        ),
      onReading: (r, p) => seen.push([r, p]),
    });
    await clock.measure();
    offset = 10;
    await clock.measure();
    expect(seen.map(([r, p]) => [r.offsetMs, p?.offsetMs])).toEqual([
      [2_000, undefined],
      [10, 2_000],
    ]);
    down = true;
    await expect(clock.measure()).rejects.toThrow('away');
    expect(clock.reading()?.offsetMs).toBe(10);
    expect(clock.now().getTime()).toBe(machine.now().getTime() + 10);
  });

  it('measures again every minute until stopped', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const machine = fixedClock(T0);
      let asked = 0;
      const clock = new DatabaseClock({
        machine,
        readings: (use) =>
          use(() => {
            asked++;
            return Promise.resolve(machine.now().getTime() + asked);
          }),
      });
      await clock.start();
      expect(asked).toBe(3);
      await vi.advanceTimersByTimeAsync(59_000);
      expect(asked).toBe(3);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(asked).toBe(6);
      clock.stop();
      await vi.advanceTimersByTimeAsync(600_000);
      expect(asked).toBe(6);
    } finally {
      vi.useRealTimers();
    }
  });
});
