import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Metrics } from '../../lib/metrics.ts';

/** What the gauges read when scraped: counts that live elsewhere and are not worth a counter. */
export interface GaugeSources {
  /** Inboxes by provider and state (connected, needs_reconnect, paused, …). */
  inboxStates(): Promise<readonly { provider: string; state: string; count: number }[]>;
  /** Background jobs running or waiting. */
  queueDepth(): number;
  /** IMAP connections open (commands and IDLE). */
  imapConnections(): number;
  /** How far the database server's clock is ahead of this machine's (negative: behind), in milliseconds. */
  clockOffsetMs(): number;
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * prom-client behind the Metrics interface, on a registry of its own (two apps in one process — tests — never
 * share counters). Process metrics (CPU, memory, event-loop lag, GC) come with prom-client's defaults.
 */
export class PrometheusMetrics implements Metrics {
  private readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'method' | 'status'>;
  private readonly requestSeconds: Histogram<'route'>;
  private readonly tools: Counter<'tool' | 'outcome'>;
  private readonly toolSeconds: Histogram<'tool'>;
  private readonly syncs: Counter<'provider' | 'outcome'>;
  private readonly syncSeconds: Histogram<'provider'>;
  private readonly syncMessages: Counter<'provider'>;
  private sources: GaugeSources | undefined;

  /**
   * `processMetrics`: the process's own (memory, CPU, event-loop lag), which prom-client samples all the time — its
   * event-loop monitor wakes the loop ~100 times a second. Only worth it when `/metrics` can be read: otherwise that
   * is most of what an idle service does, and enough to keep it from ever counting as quiet (decision 0030).
   */
  constructor(opts: { readonly processMetrics: boolean }) {
    const registers = [this.registry];
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'inbox_triage_' });
    this.requests = new Counter({
      name: 'inbox_triage_http_requests_total',
      help: 'HTTP requests by route pattern, method and status.',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: 'inbox_triage_http_request_duration_seconds',
      help: 'Time to answer an HTTP request (to the first byte for streams), by route pattern.',
      labelNames: ['route'],
      buckets: SECONDS,
      registers,
    });
    this.tools = new Counter({
      name: 'inbox_triage_tool_calls_total',
      help: 'MCP tool calls by tool and outcome (ok or the error code).',
      labelNames: ['tool', 'outcome'],
      registers,
    });
    this.toolSeconds = new Histogram({
      name: 'inbox_triage_tool_call_duration_seconds',
      help: 'Time a tool call took, by tool.',
      labelNames: ['tool'],
      buckets: SECONDS,
      registers,
    });
    this.syncs = new Counter({
      name: 'inbox_triage_syncs_total',
      help: 'Inbox syncs by provider and outcome.',
      labelNames: ['provider', 'outcome'],
      registers,
    });
    this.syncSeconds = new Histogram({
      name: 'inbox_triage_sync_duration_seconds',
      help: 'Time a sync took, by provider.',
      labelNames: ['provider'],
      buckets: SECONDS,
      registers,
    });
    this.syncMessages = new Counter({
      name: 'inbox_triage_sync_messages_total',
      help: 'Messages a sync added to the index, by provider.',
      labelNames: ['provider'],
      registers,
    });
    const read = () => this.sources;
    new Gauge({
      name: 'inbox_triage_inboxes',
      help: 'Inboxes by provider and state.',
      labelNames: ['provider', 'state'],
      registers,
      async collect() {
        this.reset();
        for (const r of (await read()?.inboxStates()) ?? [])
          this.set({ provider: r.provider, state: r.state }, r.count);
      },
    });
    new Gauge({
      name: 'inbox_triage_job_queue_depth',
      help: 'Background jobs running or waiting.',
      registers,
      collect() {
        this.set(read()?.queueDepth() ?? 0);
      },
    });
    new Gauge({
      name: 'inbox_triage_imap_connections',
      help: 'IMAP connections open, commands and IDLE.',
      registers,
      collect() {
        this.set(read()?.imapConnections() ?? 0);
      },
    });
    new Gauge({
      name: 'inbox_triage_clock_offset_seconds',
      help: "The database server's clock minus this machine's, which the service corrects for (0 on SQLite).",
      registers,
      collect() {
        this.set((read()?.clockOffsetMs() ?? 0) / 1000);
      },
    });
  }

  /** Connects the gauges to what they read (the services are built after the metrics). */
  watch(sources: GaugeSources): void {
    this.sources = sources;
  }

  httpRequest(route: string, method: string, status: number, seconds: number): void {
    this.requests.inc({ route, method, status: String(status) });
    this.requestSeconds.observe({ route }, seconds);
  }

  toolCall(tool: string, outcome: string, seconds: number): void {
    this.tools.inc({ tool, outcome });
    this.toolSeconds.observe({ tool }, seconds);
  }

  sync(provider: string, outcome: 'ok' | 'failed', seconds: number, messages: number): void {
    this.syncs.inc({ provider, outcome });
    this.syncSeconds.observe({ provider }, seconds);
    if (messages > 0) this.syncMessages.inc({ provider }, messages);
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
