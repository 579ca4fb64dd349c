import { setTimeout as sleep } from 'node:timers/promises';
import type { Job as PgBossJob, JobAttempt, PgBoss } from 'pg-boss';
import type * as PgBossModule from 'pg-boss';
import { LazyModule } from '../lazy-module.ts';
import { readySession } from '../storage/pg-peer-check.ts';
import type pg from 'pg';

const pgBossModule = new LazyModule<typeof PgBossModule>('pg-boss');
import type { JobQueue } from '../../core/jobs/job-queue.ts';
import type { Logger } from '../../lib/logger.ts';

/** pg-boss's pool on this node; it opens one connection more for LISTEN. */
const POOL_SIZE = 4;
/** The connections the job queue opens at most on a node: its pool and its LISTEN session. */
export const JOB_QUEUE_CONNECTIONS = POOL_SIZE + 1;

const SHORT_DELAY_MS = 30_000;
/** How long a finished job is kept (pg-boss keeps them a week unless told). */
const FINISHED_KEPT_SECONDS = 3600;
/** How long a finished attempt is kept, to record its end again after an outage (see finishedLately). */
const FINISHED_RECHECK_MS = 60_000;
/** After an error, how often the queue asks its database whether it answers again. */
const RECHECK_MS = 1_000;

/** pg-boss reports errors as Errors or as plain objects carrying one's message (a worker's, with its queue). */
/**
 * pg-pool's hook, which (3.14) awaits what it returns before handing a new connection out (pg-pool/index.js,
 * _promiseTry; see pg-peer-check.ts). Not in pg-boss's types; pg-boss hands its options to pg's Pool as they are.
 */
const readiedConnections = {
  onConnect: (client: pg.ClientBase) => readySession(client),
};

/** PostgreSQL's code for "terminating connection due to idle-session timeout". */
const IDLE_SESSION_ENDED = '57P05';

function codeOf(e: unknown): unknown {
  return typeof e === 'object' && e !== null && 'code' in e ? e.code : undefined;
}

function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === 'object' && e !== null && 'message' in e && typeof e.message === 'string')
    return e.message;
  return 'unknown';
}

export interface PgBossQueueOptions {
  readonly connectionString: string;
  readonly log: Logger;
  /** How often the supervisor finds jobs whose node stopped beating (and a dead node's jobs go to another). */
  readonly superviseSeconds?: number;
  /** A running job beats this often (at half of it); a job silent for this long is failed and retried. */
  readonly heartbeatSeconds?: number;
  /** Jobs this node runs at once, per kind. */
  readonly concurrency?: number;
}

/**
 * The job queue on PostgreSQL, shared by every node (decision 0024). Each kind is a pg-boss queue with the `stately`
 * policy keyed by the job's key: at most one job per key queued and one active across all nodes, so asking again
 * while it runs queues exactly one more run. Running jobs beat; the supervisor fails a silent one (its node died) and
 * it is retried on another node. New jobs wake the workers by NOTIFY. Periodic kinds are throttled to one job per
 * interval across the cluster (`singletonSeconds`), whichever node's timer asks first.
 */
export class PgBossQueue implements JobQueue {
  private readonly boss: PgBoss;
  private readonly handlers = new Map<string, (key: string) => Promise<void>>();
  private readonly intervals = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly opts: Required<Omit<PgBossQueueOptions, 'log' | 'connectionString'>>;
  private readonly log: Logger;
  private active = 0;
  /**
   * False after pg-boss reported an error; true again once a job ran, a send went through, or its database answered
   * (asked every second meanwhile, so that an idle node is ready as soon as its database is back).
   */
  private healthy = true;
  private rechecking = false;
  /** An error came since the attempts finished lately were last recorded (see completeFinished). */
  private endsToRecord = false;
  /** Attempts this node finished in the last minute, by job id, oldest first (see finishedLately). */
  private readonly finished = new Map<string, { kind: string; attempt: JobAttempt; at: number }>();
  /** Asks that could not be sent, by kind and key (one each, as the queue keeps): sent again by `recheck`. */
  private readonly unsent = new Map<string, { kind: string; key: string; due: number }>();
  private started = false;
  private stopped = false;

  constructor(o: PgBossQueueOptions) {
    this.log = o.log;
    this.opts = {
      superviseSeconds: o.superviseSeconds ?? 5,
      heartbeatSeconds: o.heartbeatSeconds ?? 10,
      concurrency: o.concurrency ?? 4,
    };
    const { PgBoss } = pgBossModule.load();
    this.boss = new PgBoss({
      connectionString: o.connectionString,
      application_name: 'inbox-triage-jobs',
      max: POOL_SIZE,
      superviseIntervalSeconds: this.opts.superviseSeconds,
      // A job whose node stopped beating is failed (and retried) by the monitor step of the supervisor's pass, which
      // runs only as often as this: at pg-boss's default of 60 s, a sync whose completion a database outage swallowed
      // held its inbox's next sync back for over a minute (decision 0077).
      monitorIntervalSeconds: this.opts.superviseSeconds,
      schedule: false,
      useListenNotify: true,
      // pg-boss hands its options to pg's Pool: each of its connections is readied as the service's own are (the peer
      // check and no idle-session limit; no statement deadline: its migrations and index builds may rightly run long).
      ...readiedConnections,
    });
    this.boss.on('error', (e: unknown) => {
      // The server ended a session left idle longer than the database's idle_session_timeout: the pool drops it, and
      // the LISTEN connection, whose heartbeat may be further apart, opens again by itself. Not the queue failing.
      if (codeOf(e) === IDLE_SESSION_ENDED) {
        this.log.debug({ err: messageOf(e) }, 'job queue: an idle session was ended by the server');
        return;
      }
      this.healthy = false;
      this.endsToRecord = true; // an attempt's end may be what failed
      this.log.warn({ err: messageOf(e) }, 'job queue error');
      void this.recheck();
    });
  }

  handle(kind: string, handler: (key: string) => Promise<void>): void {
    this.handlers.set(kind, handler);
    if (this.started) this.later(this.work(kind));
  }

  every(kind: string, intervalMs: number): void {
    this.intervals.set(kind, intervalMs);
    if (this.started) this.later(this.tick(kind, intervalMs));
  }

  async start(): Promise<void> {
    await this.boss.start();
    this.started = true;
    for (const kind of this.handlers.keys()) await this.work(kind);
    for (const [kind, ms] of this.intervals) await this.tick(kind, ms);
  }

  /** Work registered after start: set up in the background, a failure logged. */
  private later(p: Promise<void>): void {
    p.catch((e: unknown) => {
      this.log.warn({ err: e instanceof Error ? e.message : 'unknown' }, 'job queue setup failed');
    });
  }

  /** The kind's queue (created once, by whichever node is first) and this node's workers for it. */
  private async work(kind: string): Promise<void> {
    const options = {
      retryLimit: 5,
      retryDelay: 1,
      heartbeatSeconds: this.opts.heartbeatSeconds,
      expireInSeconds: 3600,
      // Nobody reads a finished job; the supervisor's counts (every pass, above) scan what is kept.
      deleteAfterSeconds: FINISHED_KEPT_SECONDS,
      notify: true,
    };
    await this.boss.createQueue(kind, { policy: 'stately', ...options });
    await this.boss.updateQueue(kind, options); // a queue made by an earlier version
    await this.boss.work<{ key: string }>(
      kind,
      { localConcurrency: this.opts.concurrency, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 5 },
      ([job]) => this.run(kind, job),
    );
  }

  /** One job of `kind` on this node: counted for `depth`, and proof that the queue works. */
  private async run(kind: string, job: PgBossJob<{ key: string }> | undefined): Promise<void> {
    const handler = this.handlers.get(kind);
    const key = job?.data.key;
    if (handler === undefined || job === undefined || key === undefined) return;
    this.active++;
    this.healthy = true;
    try {
      await handler(key);
      this.finishedLately(kind, { id: job.id, retryCount: job.retryCount });
    } finally {
      this.active--;
    }
  }

  /**
   * Keeps the attempt just finished for a minute: pg-boss records its end right after, and if the database went away
   * at that moment the job would stay active — its key's next run held back until its heartbeat lapsed and the
   * supervisor noticed — so `recheck` records the end itself once the database answers (decision 0077).
   */
  private finishedLately(kind: string, attempt: JobAttempt): void {
    const now = Date.now();
    this.finished.set(attempt.id, { kind, attempt, at: now });
    for (const [id, f] of this.finished) {
      if (now - f.at <= FINISHED_RECHECK_MS) break; // kept in the order they finished
      this.finished.delete(id);
    }
  }

  /**
   * Records as completed the attempts finished in the last minute, per kind in one statement. Fenced by attempt: a
   * job the supervisor already failed and another node is running again is not this node's to complete, and one
   * pg-boss did complete is no longer active; either is left alone.
   */
  private async completeFinished(): Promise<void> {
    const byKind = new Map<string, JobAttempt[]>();
    for (const { kind, attempt } of this.finished.values())
      byKind.set(kind, [...(byKind.get(kind) ?? []), attempt]);
    for (const [kind, attempts] of byKind) {
      await this.boss.complete(kind, attempts); // a failure leaves them kept for the next round
      for (const a of attempts) this.finished.delete(a.id);
    }
  }

  /**
   * A periodic kind: every node's timer asks, and one trigger per interval slot is created across the cluster. The
   * triggers have a queue of their own (`<kind>.every`, policy standard, throttled by `singletonSeconds`); their
   * worker asks for the kind's own job, so every run of the kind goes through its stately queue — never two at once,
   * across nodes, whether a timer or a direct ask started it.
   */
  private async tick(kind: string, ms: number): Promise<void> {
    const trigger = `${kind}.every`;
    await this.boss.createQueue(trigger, {
      policy: 'standard',
      retryLimit: 0,
      expireInSeconds: 3600,
      notify: true,
    });
    await this.boss.work<{ key: string }>(trigger, { localConcurrency: 1, pollingIntervalSeconds: 1 }, () =>
      this.enqueue(kind, kind),
    );
    const t = setInterval(() => {
      this.boss
        .send(
          trigger,
          { key: kind },
          { singletonKey: kind, singletonSeconds: Math.max(1, Math.round(ms / 1000)) },
        )
        .catch((e: unknown) => {
          this.log.warn(
            { err: e instanceof Error ? e.message : 'unknown', job: kind },
            'could not ask for a job',
          );
        });
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  async enqueue(kind: string, key: string, delayMs = 0): Promise<void> {
    if (this.stopped || !this.started) return;
    // A short delay (a watcher's debounce) waits here, so the job is sent when due and wakes a worker by NOTIFY;
    // a deferred pg-boss job would wait for the next poll.
    if (delayMs > 0 && delayMs <= SHORT_DELAY_MS) {
      const t = setTimeout(() => {
        this.timers.delete(t);
        void this.enqueue(kind, key);
      }, delayMs);
      t.unref();
      this.timers.add(t);
      return;
    }
    try {
      // A delay in seconds, which pg-boss adds to the database's time: not a date by this machine's clock, which may
      // be off from the database's (decision 0129).
      await this.boss.send(
        kind,
        { key },
        { singletonKey: key, ...(delayMs > 0 && { startAfter: Math.ceil(delayMs / 1000) }) },
      );
      this.healthy = true;
    } catch (e) {
      this.healthy = false;
      this.unsent.set(`${kind}\u0000${key}`, { kind, key, due: Date.now() + delayMs });
      this.log.warn(
        { err: e instanceof Error ? e.message : 'unknown', job: kind },
        'could not ask for a job; asking again once the database answers',
      );
      void this.recheck();
    }
  }

  /**
   * Until healthy again: asks pg-boss's own pool for `SELECT 1` every second (a failure is the error at hand); then
   * records the ends of the attempts finished lately, and sends the asks that failed meanwhile (a watcher's news of new
   * mail, a first sync after taking an inbox over), which would otherwise wait for the next periodic round (0077).
   */
  private async recheck(): Promise<void> {
    if (this.rechecking) return;
    this.rechecking = true;
    try {
      while ((!this.healthy || this.endsToRecord || this.unsent.size > 0) && !this.stopped) {
        await sleep(RECHECK_MS, undefined, { ref: false });
        if (!this.started) continue;
        if (!this.healthy) {
          try {
            await this.boss.getDb().executeSql('SELECT 1');
            this.healthy = true;
          } catch {
            continue; // still away; the next round asks again
          }
        }
        if (this.endsToRecord) {
          try {
            await this.completeFinished();
            this.endsToRecord = false;
          } catch {
            continue; // the next round tries again
          }
        }
        const asks = [...this.unsent.values()];
        this.unsent.clear();
        // One that fails again is kept again, and the loop goes on.
        for (const a of asks) await this.enqueue(a.kind, a.key, Math.max(0, a.due - Date.now()));
      }
    } finally {
      this.rechecking = false;
    }
  }

  ready(): boolean {
    return this.started && !this.stopped && this.healthy;
  }

  depth(): number {
    return this.active;
  }

  /** Stops at once without waiting: running jobs are failed and retried on other nodes. */
  async halt(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers.clear();
    await this.boss.stop({ graceful: false, close: true });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await this.boss.stop({ graceful: true, timeout: 10_000 });
  }
}
