import type pg from 'pg';
import type { Clock } from '../../lib/clock.ts';

/** How often a node measures its clock against the database server's again. */
const CLOCK_CHECK_MS = 60_000;

/** A difference this large is told to the operator: the machine's time synchronisation is not working. */
export const CLOCK_WARN_MS = 1_000;

/** Readings taken per measurement; the one with the shortest round trip is kept (the least uncertain). */
const SAMPLES = 3;

/**
 * Reads of the database server's clock (milliseconds since the epoch), on one session held for them all: a wait for a
 * connection between two reads would count in a read's round trip and skew it.
 */
export type DatabaseReadings = <T>(use: (read: () => Promise<number>) => Promise<T>) => Promise<T>;

export interface ClockReading {
  /** Database time minus this machine's time, in milliseconds. */
  readonly offsetMs: number;
  /** The round trip the reading took: the offset is known to within half of it. */
  readonly roundTripMs: number;
}

/**
 * The time every node of a cluster keeps: this machine's clock corrected to the database server's (decision 0129).
 *
 * The nodes compare times one of them wrote — a lease's end, an approval's expiry, a rate window's end — so they must
 * agree on what time it is. Each machine's own clock is only as good as its time synchronisation: a node running an
 * hour ahead took over a lease another agent held, and reset a shared rate window at every request it counted. All
 * nodes read the one database, so they keep its server's time: the offset is measured at start (before the node
 * answers anything) and again every minute, and `now()` is this machine's clock plus it. Between measurements the
 * machine's clock runs on, so the correction costs nothing per call. A measurement that fails (the database away)
 * keeps the last offset.
 */
export class DatabaseClock implements Clock {
  private readonly machine: Clock;
  private readonly readings: DatabaseReadings;
  private readonly onReading: (r: ClockReading, previous: ClockReading | undefined) => void;
  private last: ClockReading | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(o: {
    /** This machine's clock. */
    machine: Clock;
    /** Reads of the database server's clock. */
    readings: DatabaseReadings;
    /** Told of every measurement and the one before (to report a difference when it appears or goes). */
    onReading?: (r: ClockReading, previous: ClockReading | undefined) => void;
  }) {
    this.machine = o.machine;
    this.readings = o.readings;
    this.onReading = o.onReading ?? (() => undefined);
  }

  now(): Date {
    return new Date(this.machine.now().getTime() + (this.last?.offsetMs ?? 0));
  }

  /** The last measurement (none before the first). */
  reading(): ClockReading | undefined {
    return this.last;
  }

  /** Measures the offset: the reading with the shortest round trip of a few, taken one after another. */
  async measure(): Promise<ClockReading> {
    const reading = await this.readings(async (read) => {
      let best = await this.sample(read);
      for (let i = 1; i < SAMPLES; i++) {
        const r = await this.sample(read);
        if (r.roundTripMs < best.roundTripMs) best = r;
      }
      return best;
    });
    const previous = this.last;
    this.last = reading;
    this.onReading(reading, previous);
    return reading;
  }

  private async sample(read: () => Promise<number>): Promise<ClockReading> {
    const sent = this.machine.now().getTime();
    const at = await read();
    const back = this.machine.now().getTime();
    // The server read its clock somewhere in the round trip: the middle is the best guess.
    return { offsetMs: Math.round(at - (sent + back) / 2), roundTripMs: back - sent };
  }

  /** Measures once (a failure throws: the node cannot know the cluster's time) and then every `everyMs`. */
  async start(everyMs = CLOCK_CHECK_MS): Promise<ClockReading> {
    const first = await this.measure();
    this.timer = setInterval(() => {
      this.measure().catch(() => undefined);
    }, everyMs);
    this.timer.unref();
    return first;
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** Reads of the database server's clock on one session of `pool`, taken for the measurement and given back after. */
export function databaseReadings(pool: pg.Pool): DatabaseReadings {
  return async (use) => {
    const session = await pool.connect();
    let broken = false;
    try {
      return await use(async () => {
        try {
          const r = await session.query<{ ms: number }>({
            name: 'database-clock',
            text: 'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms',
          });
          const ms = r.rows[0]?.ms;
          if (ms === undefined) throw new Error('the database did not say what time it is');
          return ms;
        } catch (e) {
          broken = true;
          throw e;
        }
      });
    } finally {
      // A session that failed a read is dropped, not handed to the next caller.
      session.release(broken);
    }
  };
}
