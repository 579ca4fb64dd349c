import {
  CLOCK_WARN_MS,
  DatabaseClock,
  databaseReadings,
  type ClockReading,
} from '../adapters/storage/database-clock.ts';
import type { Db } from '../adapters/storage/index.ts';
import { systemClock, type Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { AppOverrides } from './overrides.ts';

/**
 * The clock the services keep (decision 0129). A test's clock is used as it is. On SQLite there is one process: the
 * machine's clock. On PostgreSQL the nodes keep the database server's time (DatabaseClock), measured before the node
 * answers anything; a difference of a second or more is logged, since what else runs here (log lines' times, TLS
 * certificate checks) still goes by the machine's own clock.
 */
export async function clusterClock(
  db: Db,
  overrides: AppOverrides,
  log: Logger,
): Promise<{ clock: Clock; stop: () => void }> {
  if (overrides.clock !== undefined) return { clock: overrides.clock, stop: () => undefined };
  const machine = overrides.machineClock ?? systemClock;
  if (db.dialect !== 'postgres') return { clock: machine, stop: () => undefined };
  const clock = new DatabaseClock({
    machine,
    readings: databaseReadings(db.pool),
    onReading: (r, previous) => {
      const off = Math.abs(r.offsetMs) >= CLOCK_WARN_MS;
      const wasOff = previous !== undefined && Math.abs(previous.offsetMs) >= CLOCK_WARN_MS;
      if (off && !wasOff) log.warn(readingFields(r), clockWords(r));
      else if (!off && wasOff)
        log.info(readingFields(r), "this machine's clock agrees with the database server's again");
    },
  });
  await clock.start();
  return { clock, stop: () => clock.stop() };
}

const readingFields = (r: ClockReading) => ({ clockOffsetMs: r.offsetMs, roundTripMs: r.roundTripMs });

/** The log line for a machine whose clock is off, in words an operator acts on. */
function clockWords(r: ClockReading): string {
  const seconds = (Math.abs(r.offsetMs) / 1000).toFixed(1);
  const side = r.offsetMs < 0 ? 'ahead of' : 'behind';
  return (
    `this machine's clock is ${seconds} s ${side} the database server's. The service keeps the database's time, so ` +
    "every node agrees on leases, approvals and rate limits; the machine's other programs do not: check its time " +
    'synchronisation (NTP)'
  );
}
