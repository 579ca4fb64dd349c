// `npm run bench`: every benchmark, each as a ratio against a baseline measured in the same run, written to
// docs/benchmarks.md. Speed is measured here, never asserted in tests.
import { startPgCluster } from '../test/rig/pg-cluster.ts';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { medianOf } from './load.ts';
import { mcpThroughput } from './mcp-throughput.ts';
import { machine, writeSection } from './report.ts';
import { payloadSize, toolListSizes } from './payload.ts';
import { HTML_BYTES, htmlBench } from './html.ts';
import { SYNC_RUNS, syncBench } from './sync.ts';
import { clusterBench } from './cluster.ts';
import { fuzz } from '../test/fuzz/http-fuzz.ts';
import { idleService } from './idle.ts';
import { idleInboxes } from './idle-inboxes.ts';
import { modelTrials, type ModelMailbox, type ModelTrials } from './model-trials.ts';
import { attachmentStream } from './attachment.ts';
import { runCrashTrials, TRIAL_KINDS } from '../test/rig/crash-trials.ts';
import { postgresTrials, sqliteTrials } from '../test/rig/trial-database.ts';
import { CONVERGENCE_KINDS, runConvergenceTrials } from '../test/rig/convergence-trials.ts';
import { ensureSystemPackages, REQUIRED_SYSTEM_PACKAGES } from '../test/rig/system-deps.ts';
import { bundledMain } from '../bin/bundle.ts';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    tool: { type: 'string' },
    rounds: { type: 'string' },
    seconds: { type: 'string', default: '3' },
    'no-write': { type: 'boolean' },
  },
});
const seconds = Number(values.seconds);
// Dovecot, PostgreSQL and the rest, installed from Debian's registry when missing (as `npm test` does), or named.
await ensureSystemPackages(REQUIRED_SYSTEM_PACKAGES);
// The service processes measured here run its bundle (decision 0035), built once now as the test suite does.
if (bundledMain(join(import.meta.dirname, '..'), {}) === undefined)
  throw new Error('the service could not be bundled');
const DOC = join(import.meta.dirname, '..', 'docs', 'benchmarks.md');
const today = new Date().toISOString().slice(0, 10);
const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(1)}%`;

if (values.only === undefined || values.only === 'mcp') {
  const connections = 64;
  const rounds = Number(values.rounds ?? 9);
  const rows = await mcpThroughput({ connections, seconds, rounds, only: values.tool });
  const lines = [
    `Measured ${today} on ${machine()}; ${String(connections)} connections, autocannon in the runner process, each server its own process; after a 2 s warm-up of each, ${String(rounds)} rounds of ${String(seconds)} s on ours then ${String(seconds)} s on bare. Each side shows its median round; the ratio is the median of the per-round ratios (all rounds in brackets).`,
    '',
    '| request | ours req/s | p50 | p99 | bare node:http req/s | p50 | p99 | ours / bare |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${String(r.ours.requestsPerSecond)} | ${String(r.ours.p50Ms)} ms | ${String(r.ours.p99Ms)} ms | ${String(r.bare.requestsPerSecond)} | ${String(r.bare.p50Ms)} ms | ${String(r.bare.p99Ms)} ms | **${pct(medianOf(r.roundRatios), 1)}** (${r.roundRatios.map((x) => pct(x, 1)).join(', ')}) |`,
    ),
  ];
  for (const r of rows)
    if (r.ours.non2xx + r.ours.errors > 0)
      lines.push(
        '',
        `Warning: ${r.name}: ${String(r.ours.non2xx)} non-2xx, ${String(r.ours.errors)} errors.`,
      );
  console.log(lines.join('\n'));
  if (values['no-write'] !== true) writeSection(DOC, 'mcp', lines.join('\n'));
}

if (values.only === undefined || values.only === 'payload') {
  const p = await payloadSize();
  const per = (n: number) => (n / p.previews).toFixed(0);
  const lines = [
    `Measured ${today}: \`list_messages\` of ${String(p.previews)} demo previews, the JSON result as sent against the same result without the marks on sender-written text and the \`untrusted\` notice (decision 0017).`,
    '',
    '| list_messages, 50 previews | bytes | per preview |',
    '|---|---|---|',
    `| without marks | ${String(p.plainBytes)} | ${per(p.plainBytes)} |`,
    `| with marks (as sent) | ${String(p.markedBytes)} | ${per(p.markedBytes)} |`,
    `| cost | +${String(p.markedBytes - p.plainBytes)} (${pct(p.markedBytes - p.plainBytes, p.plainBytes)}) | +${per(p.markedBytes - p.plainBytes)} |`,
  ];
  console.log(lines.join('\n'));
  if (values['no-write'] !== true) writeSection(DOC, 'payload', lines.join('\n'));
  const kb = (n: number) => (n / 1024).toFixed(1);
  const tools = [
    `Measured ${today}: \`tools/list\` for one agent by what the person lets it do and where (decisions 0141, 0142) — what a model is shown of each tool (name, title, description, input schema) and the whole answer as sent (output schemas too, which clients check results against).`,
    '',
    '| the agent may | tools | shown to the model | sent |',
    '|---|---|---|---|',
    ...toolListSizes().map(
      (t) => `| ${t.label} | ${String(t.tools)} | ${kb(t.modelBytes)} KiB | ${kb(t.sentBytes)} KiB |`,
    ),
  ];
  console.log(tools.join('\n'));
  if (values['no-write'] !== true) writeSection(DOC, 'tools', tools.join('\n'));
}

if (values.only === undefined || values.only === 'html') {
  const h = htmlBench();
  const mb = (HTML_BYTES / 1e6).toFixed(0);
  const lines = [
    `Measured ${today} on ${machine()}: ${mb} MB of HTML turned into the text an agent reads, median of 7 runs each; the baseline is ${mb} MB of the demo inbox's own newsletters.`,
    '',
    '| markup | ms | against the newsletters |',
    '|---|---|---|',
    `| the demo newsletters (baseline) | ${h.ordinaryMs.toFixed(0)} | 1× |`,
    ...h.rows.map((r) => `| ${r.name} | ${r.ms.toFixed(0)} | ${r.ratio.toFixed(2)}× |`),
  ];
  console.log(lines.join('\n'));
  if (values['no-write'] !== true) writeSection(DOC, 'html', lines.join('\n'));
}

if (values.only === undefined || values.only === 'sync') {
  const mailbox = Number(process.env['BENCH_MAILBOX'] ?? 100_000);
  const r = await syncBench({ mailbox, windows: [1000, 10_000], idleInboxes: 200 });
  const lines = [
    `Measured ${today} on ${machine()}; Dovecot 2.3 on loopback, a ${r.mailbox.toLocaleString('en')}-message INBOX, median of ${String(SYNC_RUNS)} runs.`,
    '',
    '| initial window sync | ours (connect, list, fetch, parse, index in SQLite) | raw imapflow fetch of the same fields | ours / raw (median of per-run ratios) | incremental sync, nothing new |',
    '|---|---|---|---|---|',
    ...r.rows.map(
      (w) =>
        `| newest ${w.window.toLocaleString('en')} | ${w.oursMs.toFixed(0)} ms | ${w.rawMs.toFixed(0)} ms | **${w.ratio.toFixed(2)}×** | ${w.incrementalMs.toFixed(0)} ms |`,
    ),
    '',
    `The whole mailbox indexed (issue 21, P2: the first window, then \`load_older_messages\` 200 at a time to the end, ${String(r.whole.calls)} calls): **${r.whole.oursPerSecond.toFixed(0)} messages/s**, against a raw imapflow FETCH of the same fields for all ${r.mailbox.toLocaleString('en')} at ${r.whole.rawPerSecond.toFixed(0)} messages/s: **${(r.whole.oursPerSecond / r.whole.rawPerSecond).toFixed(2)}×** (goal ≥ 1×).`,
    '',
    `New mail visible in the index after APPEND (IMAP IDLE → background sync): ${r.newMailMs.map((m) => `${m.toFixed(0)} ms`).join(', ')} (median ${[...r.newMailMs].sort((a, b) => a - b)[Math.floor(r.newMailMs.length / 2)]!.toFixed(0)} ms).`,
    '',
    `Idle connected inboxes: ${String(r.idle.inboxes)} inboxes watched by IDLE cost ${String(r.idle.heapPerInboxKb)} KB of JS heap each at rest, after a full GC (${String(r.idle.connectionsPerInbox)} IMAP connection each); 5 s after the watchers started, while the logins of their first syncs were still kept (${String(r.idle.keptConnectionsPerInbox)} connections each), ${String(r.idle.heapWithKeptLoginsKb)} KB.`,
  ];
  console.log(lines.join('\n'));
  if (values['no-write'] !== true) writeSection(DOC, 'sync', lines.join('\n'));
}

if (values.only === undefined || values.only === 'cluster') {
  const connections = 48;
  const rounds = 5;
  const r = await clusterBench({ seconds, rounds, connections });
  const lines = [
    `Measured ${today} on ${machine()}; PostgreSQL 15 on loopback (the test rig's cluster).`,
    '',
    '| MCP tool call on PostgreSQL | statements per call, one call at a time | 32 calls at once |',
    '|---|---|---|',
    ...r.roundTrips.map((t) => `| ${t.tool} | **${t.perCall.toFixed(1)}** | ${t.atOnce.toFixed(1)} |`),
    '',
    `| list_messages (limit 5), ${String(connections)} connections | req/s | p50 | p99 |`,
    '|---|---|---|---|',
    `| one node | ${String(r.one.requestsPerSecond)} | ${String(r.one.p50Ms)} ms | ${String(r.one.p99Ms)} ms |`,
    `| three nodes (a third of the connections each) | ${String(r.three.requestsPerSecond)} | ${String(r.three.p50Ms)} ms | ${String(r.three.p99Ms)} ms |`,
    `| three / one | **${r.ratio.toFixed(2)}×** (${r.roundRatios.map((x) => x.toFixed(2)).join(', ')}) | | |`,
  ];
  if (r.one.non2xx + r.one.errors + r.three.non2xx + r.three.errors > 0)
    lines.push('', `Warning: non-2xx or errors: ${JSON.stringify({ one: r.one, three: r.three })}`);
  console.log(lines.join('\n'));
  if (values['no-write'] !== true) writeSection(DOC, 'cluster', lines.join('\n'));
}

if (values.only === undefined || values.only === 'fuzz') {
  const count = Number(process.env['FUZZ_REQUESTS'] ?? 100_000);
  // PostgreSQL refuses text SQLite keeps (decision 0060): a share of the run goes to it too.
  const pgCount = Number(process.env['FUZZ_PG_REQUESTS'] ?? 20_000);
  const seed = Number(process.env['FUZZ_SEED'] ?? Date.now() % 1_000_000);
  const t = performance.now();
  const runs: { engine: string; r: Awaited<ReturnType<typeof fuzz>> }[] = [];
  runs.push({ engine: 'SQLite', r: await fuzz({ count, concurrency: 8, seed }) });
  if (pgCount > 0) {
    const cluster = await startPgCluster();
    try {
      const databaseUrl = await cluster.createDatabase();
      runs.push({
        engine: 'PostgreSQL',
        // Twice as many at once: what PostgreSQL adds is concurrency (races with removing an inbox, decision 0064),
        // within a process and across the three processes the requests are dealt to.
        r: await fuzz({ count: pgCount, concurrency: 16, seed, databaseUrl, nodes: 3 }),
      });
    } finally {
      await cluster.stop();
    }
  }
  const seconds = (performance.now() - t) / 1000;
  const lines = [
    `Run ${today} on ${machine()} (seed ${String(seed)}, 8 at a time on SQLite and 16 on PostgreSQL, ${seconds.toFixed(0)} s): generated requests against the real service process (on PostgreSQL, three processes on the one database, the requests dealt to them in turn) — every tool's arguments from its own input schema and then mutated, in both MCP eras; the REST API; the OAuth endpoints; the web forms with and without a session and its CSRF token (\`test/fuzz/http-fuzz.ts\`; 10,000 of them on SQLite and 5,000 on PostgreSQL over two processes run in \`npm test\`).`,
    '',
    '| database | requests | 5xx or internal_error, no answer within 5 s, or an answer in a database’s words | slowest answer | every process alive after | log lines with a stack or at error level |',
    '|---|---|---|---|---|---|',
    ...runs.map(
      ({ engine, r }) =>
        `| ${engine} | **${r.requests.toLocaleString('en')}** (${Object.entries(r.byKind)
          .map(([k, n]) => `${k} ${n.toLocaleString('en')}`)
          .join(
            ', ',
          )}) | **${String(r.failures.length)}** | ${String(r.slowestMs)} ms | ${r.alive ? 'yes' : '**no**'} | **${String(r.badLogLines.length)}** |`,
    ),
    ...runs.flatMap(({ engine, r }) => [
      '',
      `${engine}: answers by status ${Object.entries(r.byStatus)
        .map(([s, n]) => `${s} × ${n.toLocaleString('en')}`)
        .join(', ')}; sent again after the kept-alive connection was closed under them: ${String(r.resent)}.`,
    ]),
  ];
  // A generated request can be tens of kilobytes: its long strings are cut for the page.
  const cut = (_k: string, v: unknown) =>
    typeof v === 'string' && v.length > 200
      ? `${v.slice(0, 120)}…(${v.length.toLocaleString('en')} characters)`
      : v;
  for (const { engine, r } of runs)
    if (r.failures.length > 0)
      lines.push('', `First failures on ${engine}: ${JSON.stringify(r.failures.slice(0, 3), cut)}`);
  console.log(lines.join('\n'));
  // What the processes logged with a stack goes to the console only: the report names how many.
  for (const { engine, r } of runs)
    for (const line of r.badLogLines.slice(0, 3)) console.log(`\n${engine} logged: ${line.slice(0, 4000)}`);
  if (values['no-write'] !== true) writeSection(DOC, 'fuzz', lines.join('\n'));
}

if (values.only === undefined || values.only === 'idle') {
  const samples = await idleService(5);
  const med = (k: 'readyMs' | 'rssMb') => medianOf(samples.map((x) => x[k]));
  const lines = [
    `Measured ${today} on ${machine()}: \`serve\` on a new data directory with only the demo inbox, five starts; ready = process start to the first 200 from \`/readyz\`; memory and threads from \`/proc\` after 25 s idle (the service gives memory back after 10 s quiet, decision 0030). The service runs as one bundled module (decision 0035), built before the first start; the first start after that fills the compile cache (decision 0027).`,
    '',
    '| start | ready | RSS | threads | memory given back by then (heap slack before → after) | CPU while waiting 25 s | requests logged meanwhile |',
    '|---|---|---|---|---|---|---|',
    ...samples.map(
      (x, i) =>
        `| ${String(i + 1)} | ${x.readyMs.toFixed(0)} ms | ${x.rssMb.toFixed(0)} MB | ${String(x.threads)} | ${x.releases.length === 0 ? 'not yet' : x.releases.map((r) => `${String(r.before)} → ${String(r.after)} MB`).join(', ')} | ${String(x.waitCpuMs)} ms | ${String(x.waitRequests)} |`,
    ),
    `| **median** | **${med('readyMs').toFixed(0)} ms** | **${med('rssMb').toFixed(0)} MB** | | | | |`,
  ];
  console.log(lines.join('\n'));
  if (values['no-write'] !== true) writeSection(DOC, 'idle', lines.join('\n'));
}

if (values.only === undefined || values.only === 'idle-inboxes') {
  const r = await idleInboxes({
    inboxes: Number(process.env['BENCH_IDLE_INBOXES'] ?? 1000),
    idleSeconds: 30,
    samples: 10,
  });
  const sorted = [...r.newMailMs].sort((a, b) => a - b);
  const lines = [
    `Measured ${today} on ${machine()}: one service process (SQLite) with ${r.inboxes.toLocaleString('en')} connected IMAP inboxes at Dovecot on loopback, each watched by IDLE; every inbox watched ${r.allWatchedSeconds.toFixed(0)} s after start; measured from outside once settled — every inbox at exactly one connection, the syncs asked for at start done and the logins they kept logged out — ${r.settledSeconds.toFixed(0)} s after start${r.watchedOnce === r.inboxes ? '' : ' (not all settled: measured five minutes after every inbox was watched)'}. While it idled it logged ${String(r.idleLogLines)} lines, ${String(r.idleRequests)} of them requests.`,
    '',
    `| inboxes | one connection each at Dovecot | RSS | threads | CPU the first ${String(r.idleSeconds)} s after settling | CPU while idle, the ${String(r.idleSeconds)} s after that | new mail seen through the service (median, max of ${String(r.newMailMs.length)}) |`,
    '|---|---|---|---|---|---|---|',
    `| ${r.inboxes.toLocaleString('en')} | ${r.watchedOnce.toLocaleString('en')} | **${r.rssMb.toFixed(0)} MB** | ${String(r.threads)} | ${r.settlingCpuPercent.toFixed(1)}% of a core | **${r.cpuPercent.toFixed(1)}% of a core** | **${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms**, ${sorted.at(-1)!.toFixed(0)} ms |`,
  ];
  console.log(lines.join('\n'));
  if (values['no-write'] !== true) writeSection(DOC, 'idle-inboxes', lines.join('\n'));
}

/** Batches of the safety model on each mailbox in turn, until each has its steps or one fails; the section's lines. */
async function modelSection(
  mailboxes: readonly (readonly [ModelMailbox, string, number])[],
  batchRuns: number,
): Promise<string[]> {
  const rows: { where: string; r: ModelTrials }[] = [];
  for (const [where, label, steps] of mailboxes) {
    if (steps <= 0) continue;
    rows.push({ where: label, r: await modelTrials({ where, minSteps: steps, batchRuns }) });
    if (!rows.at(-1)!.r.passed) break;
  }
  const total = rows.reduce((n, x) => n + x.r.steps, 0);
  const lines = [
    `Run ${today} on ${machine()} (${rows.reduce((n, x) => n + x.r.seconds, 0).toFixed(0)} s): the model-based test of the safety rules (\`test/model/triage-model.test.ts\`) — two agents, one of them obeying injected text, every answer and the state after it checked against the model and the mailbox itself — in batches of ${String(batchRuns)} runs of at most 25 commands, each batch in a fresh process (replay a batch with \`FC_SEED=<seed> MODEL_RUNS=${String(batchRuns)}\` and the suite's name as \`-t\`).`,
    '',
    '| mailbox | runs | steps | rules broken | seconds | seeds |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      ({ where, r }) =>
        `| ${where} | ${r.runs.toLocaleString('en')} | **${r.steps.toLocaleString('en')}** | **${r.passed ? '0' : 'see below'}** | ${r.seconds.toFixed(0)} | ${r.seeds.join(', ')} |`,
    ),
    `| **all** | | **${total.toLocaleString('en')}** | **${rows.every((x) => x.r.passed) ? '0' : 'see below'}** | | |`,
  ];
  for (const { r } of rows) if (!r.passed) lines.push('', '```', r.report.slice(-2000), '```');
  return lines;
}

if (values.only === undefined || values.only === 'model') {
  // ~13 steps a run on average: batches of 200 runs, each in a fresh process, until half of MODEL_STEPS (100,000 by
  // default) on each mailbox.
  const batchRuns = Number(process.env['MODEL_BATCH_RUNS'] ?? 200);
  const minSteps = Math.ceil(Number(process.env['MODEL_STEPS'] ?? 100_000) / 2);
  // Beyond the goal: the two agents on two nodes of one PostgreSQL, where leases, approvals and changes meet across
  // processes.
  const pgSteps = Number(process.env['MODEL_PG_STEPS'] ?? 25_000);
  const lines = await modelSection(
    [
      ['demo', 'the demo inbox', minSteps],
      [
        'dovecot',
        'an IMAP inbox on Dovecot (sending to the SMTP sink, unsubscribing through a local https sink)',
        minSteps,
      ],
      ['demo-pg', 'the demo inbox on PostgreSQL, each agent on a node of its own', pgSteps],
    ],
    batchRuns,
  );
  console.log(lines.join('\n'));
  if (values['no-write'] !== true) writeSection(DOC, 'model', lines.join('\n'));
}

if (values.only === undefined || values.only === 'model-others') {
  // The model's other mailboxes, which `npm test` runs 40 runs each: Gmail and Microsoft (the adapters written
  // against emulators), Dovecot without the extensions the IMAP writer prefers, and the providers across two nodes.
  // A Gmail step costs ~0.2 s here (the model reads the whole mailbox through the emulator after each), a Graph one
  // ~0.01 s, a Dovecot one ~0.03 s.
  const steps = Number(process.env['MODEL_OTHER_STEPS'] ?? 5_000);
  const lines = await modelSection(
    [
      ['gmail', 'a Gmail inbox (the emulator)', steps],
      ['graph', 'a Microsoft 365 inbox (the Graph stub)', steps],
      ['gmail-pg', 'Gmail, each agent on a PostgreSQL node of its own', Math.ceil(steps / 2)],
      ['graph-pg', 'Microsoft 365, each agent on a PostgreSQL node of its own', Math.ceil(steps / 2)],
      ['plain-imap', 'Dovecot as a plain IMAP4rev1 server (no SPECIAL-USE, MOVE or UIDPLUS)', steps],
      ['under-inbox', 'Dovecot with its folders under INBOX (INBOX.Sent)', steps],
    ],
    Number(process.env['MODEL_BATCH_RUNS'] ?? 200),
  );
  console.log(lines.join('\n'));
  if (values['no-write'] !== true) writeSection(DOC, 'model-others', lines.join('\n'));
}

if (values.only === undefined || values.only === 'attachment') {
  // Two sizes four times apart, and the larger read slowly: what a download holds would show as a peak growing with the file.
  const runs = [await attachmentStream(25), await attachmentStream(100), await attachmentStream(100, 20)];
  const lines = [
    `Measured ${today} on ${machine()}: one message with one attachment (base64 in the message, ~1.37× its size) at Dovecot, read with \`get_message\` and then downloaded through \`get_attachment\`'s link; growth of the service process's peak RSS (\`VmHWM\`) during each, one fresh service process per size.`,
    '',
    '| attachment | downloaded intact | download | peak RSS growth: download | peak RSS growth: get_message |',
    '|---|---|---|---|---|',
    ...runs.map(
      (r) =>
        `| ${(r.bytes / 1048576).toFixed(0)} MB${r.pauseMsPerPiece > 0 ? `, read slowly (${String(r.pauseMsPerPiece)} ms after each piece)` : ''} | ${r.intact ? 'yes' : '**no**'} | ${r.downloadMs.toFixed(0)} ms | **${r.downloadPeakGrowthMb.toFixed(0)} MB** | **${r.getMessagePeakGrowthMb.toFixed(0)} MB** |`,
    ),
  ];
  console.log(lines.join('\n'));
  if (values['no-write'] !== true) writeSection(DOC, 'attachment', lines.join('\n'));
}

if (values.only === undefined || values.only === 'trials') {
  const seed = Number(process.env['CRASH_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
  const trials = Number(process.env['CRASH_TRIALS'] ?? 240);
  const pgTrials = Number(process.env['CRASH_PG_TRIALS'] ?? 120);
  const log = (l: string) => console.log(l);
  const runs: { engine: string; r: Awaited<ReturnType<typeof runCrashTrials>> }[] = [];
  runs.push({ engine: 'SQLite', r: await runCrashTrials({ trials, seed, engine: sqliteTrials, log }) });
  if (pgTrials > 0) {
    const cluster = await startPgCluster();
    try {
      const engine = postgresTrials(() => cluster.createDatabase());
      runs.push({ engine: 'PostgreSQL', r: await runCrashTrials({ trials: pgTrials, seed, engine, log }) });
      // The killed node's work taken over by a node already running on the same database.
      runs.push({
        engine: 'two PostgreSQL nodes',
        r: await runCrashTrials({ trials: pgTrials, seed, engine, standingNode: true, log }),
      });
    } finally {
      await cluster.stop();
    }
  }
  const perRun = (f: (r: (typeof runs)[number]['r']) => number) =>
    runs.map((x) => String(f(x.r))).join(' / ');
  const lines = [
    `Run ${today} on ${machine()} (${runs.map((x) => `${x.engine} ${x.r.seconds.toFixed(0)} s`).join(', ')}), seed ${String(seed)} (\`CRASH_SEED\` replays the choices; the kill moments depend on timing): the service (\`serve\`, on ${runs.map((x) => x.engine).join(', then on ')}) against Dovecot and the SMTP sink, killed with SIGKILL at a random moment during an operation, restarted (with two nodes: the other node, running since before the operation, carries on), and checked (\`test/rig/crash-trials.ts\`): the index equals a direct IMAP listing after the next sync; every unused undo handle puts the mailbox back exactly; after a kill during \`create_draft\` or the draft card's edit and the sweep for unfinished work, every copy in Drafts is a draft the service records, one each, with its text; no draft reached the sink twice and none is recorded sent that the sink lacks; the refresh-token family still refreshes; a migration cut short completes to the reference schema.`,
    '',
    `| kind | trials (${runs.map((x) => x.engine).join(' / ')}) | killed mid-operation | promises broken |`,
    '|---|---|---|---|',
    ...TRIAL_KINDS.map(
      (k) =>
        `| ${k} | ${perRun((r) => r.kinds[k].trials)} | ${perRun((r) => r.kinds[k].killedMidOperation)} | ${perRun((r) => r.failures.filter((f) => f.kind === k).length)} |`,
    ),
    `| **all** | **${perRun((r) => r.trials)}** | **${perRun((r) => TRIAL_KINDS.reduce((n, k) => n + r.kinds[k].killedMidOperation, 0))}** | **${perRun((r) => r.failures.length)}** |`,
  ];
  lines.push(
    '',
    `Refreshes killed after their rotation was committed and before the answer reached the host (half the refresh kills wait for that moment): ${perRun((r) => r.refreshesKilledAfterCommit)}.`,
  );
  for (const { engine, r } of runs)
    if (r.failures.length > 0)
      lines.push(
        '',
        ...r.failures.map(
          (f) =>
            `- ${engine}, trial ${String(f.trial)} (${f.kind}, killed after ${f.killAfterMs.toFixed(0)} ms): ${f.problem}`,
        ),
      );
  console.log(lines.join('\n'));
  if (values['no-write'] !== true) writeSection(DOC, 'trials', lines.join('\n'));
}

if (values.only === undefined || values.only === 'trials' || values.only === 'convergence') {
  const seed = Number(process.env['CONVERGENCE_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
  const r = await runConvergenceTrials({ trials: 100, seed });
  const converged = CONVERGENCE_KINDS.reduce((n, k) => n + r.kinds[k].converged, 0);
  const lines = [
    `Run ${today} on ${machine()} (${r.seconds.toFixed(0)} s), seed ${String(r.seed)} (\`CONVERGENCE_SEED\`): the service in process, its background sync (every 1 s here) and IDLE watcher running, reaching Dovecot and the SMTP sink through fault proxies (\`test/rig/convergence-trials.ts\`). Before each fault the mailbox changes at the server (new mail, flags, an expunge); after it, with no tool call, the index of INBOX must equal a direct listing and the inbox's error must clear within 20 s.`,
    '',
    '| fault | trials | converged | slowest |',
    '|---|---|---|---|',
    ...CONVERGENCE_KINDS.map(
      (k) =>
        `| ${k} | ${String(r.kinds[k].trials)} | ${String(r.kinds[k].converged)} | ${String(r.kinds[k].slowestMs)} ms |`,
    ),
    `| **all** | **${String(r.trials)}** | **${String(converged)}** | |`,
    '',
    `While the server was down: at most **${r.outageAttemptsPerSecond.toFixed(1)} connection attempts per second** for the one inbox (a sync a second at this interval, plus the watcher's backoff).`,
  ];
  if (r.failures.length > 0)
    lines.push('', ...r.failures.map((f) => `- trial ${String(f.trial)} (${f.kind}): ${f.problem}`));
  console.log(lines.join('\n'));
  if (values['no-write'] !== true) writeSection(DOC, 'convergence', lines.join('\n'));
}
