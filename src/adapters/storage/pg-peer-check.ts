import type pg from 'pg';
import { withDeadline } from './pg-deadline.ts';

/**
 * A database or role may end sessions idle longer than `idle_session_timeout` (PostgreSQL 14 and later; hosts set
 * it to reap connections their clients forgot). Ours are not forgotten: the pools close their own idle connections
 * after 10 s, and the sessions kept open on purpose — the watch session that holds this node's inbox claims, the
 * lock sessions — must not be ended under it. A sub-select, so that a server without the setting answers NULL.
 */
const NO_IDLE_LIMIT_SQL =
  "(SELECT set_config(name, '0', false) FROM pg_settings WHERE name = 'idle_session_timeout')";

/**
 * Asks PostgreSQL to notice within about half a minute that the process at the other end of a session is gone
 * without a word — its machine lost power, froze, or the network between them broke (decision 0058). Without it the
 * server learns only from the operating system's TCP keepalive, two hours and more by default, and all that time it
 * keeps the session's locks: the dead node's inbox claims (no other node watches those inboxes) and an inbox's
 * action lock held across a mailbox round trip (every other node's changes to that inbox wait).
 *
 * After 10 s without traffic the server probes every 5 s and ends the session after 3 unanswered probes; data it sent
 * that stays unacknowledged for 25 s ends it too (`tcp_user_timeout`, where keepalives do not apply). Ignored on a
 * Unix-domain socket, where the peer cannot be on another machine. One statement, run once per new connection.
 */
export const PEER_CHECK_SQL =
  "SELECT set_config('tcp_keepalives_idle', '10', false), set_config('tcp_keepalives_interval', '5', false), " +
  "set_config('tcp_keepalives_count', '3', false), set_config('tcp_user_timeout', '25000', false), " +
  NO_IDLE_LIMIT_SQL;

/**
 * Readies a new connection of one of our pools before anyone uses it (pg-pool awaits `onConnect`):
 *
 * - A connection that dies while checked out must not end the process. pg-pool listens for errors only on idle
 *   connections; on one in use, a dropped socket (PostgreSQL restarted, a failover) emits `error` with nothing
 *   listening, an uncaught exception. The statement in flight rejects with the same error, and the pool discards
 *   the connection when it comes back (it is no longer queryable), so the listener has nothing else to do.
 * - The peer check above, and `statement_timeout`: PostgreSQL cancels a statement that runs longer than a deadline,
 *   so one the client is told failed was rolled back, not committed behind its back (decision 0063); without one
 *   (migrations), none, whatever the database's or role's default. One statement.
 */
export async function readySession(client: pg.ClientBase, deadlineMs = 0): Promise<void> {
  client.on('error', () => undefined);
  // 0 is no deadline, said as well: a default the database or role sets (hosts often do) would cut a migration short.
  await client.query(`${PEER_CHECK_SQL}, set_config('statement_timeout', $1, false)`, [String(deadlineMs)]);
}

/**
 * Pool options for the service's sessions: `readySession` as `onConnect`, which pg-pool (3.14) awaits before it hands
 * a connection out, and with `deadlineMs` > 0 the deadline on both sides (pg-deadline.ts).
 */
export function withReadySessions(config: pg.PoolConfig, deadlineMs = 0): pg.PoolConfig {
  return {
    ...withDeadline(config, deadlineMs),
    // @types/pg types `onConnect` as returning void; pg-pool 3.14 awaits what it returns (pg-pool/index.js, _promiseTry).
    // eslint-disable-next-line @typescript-eslint/no-misused-promises
    onConnect: (client: pg.ClientBase) => readySession(client, deadlineMs),
  };
}
