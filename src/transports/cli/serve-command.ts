import { createApp } from '../../app.ts';
import { startIdleMemoryRelease } from '../../adapters/runtime/idle-memory.ts';
import { DatabaseWaitStopped } from '../../adapters/storage/index.ts';
import { holdInstanceLock } from '../../adapters/storage/sqlite/instance-lock.ts';
import { deploymentWarnings, readConfiguration, type Config, type Secrets } from '../../config/index.ts';
import { listen } from '../http/serve.ts';
import { EXIT, type CliIo } from './cli-io.ts';

/** Runs the service until SIGTERM/SIGINT, then drains requests and closes the database. */
export async function serveCommand(io: CliIo): Promise<number> {
  const { config, secrets } = readConfiguration(io.env, io.cwd);
  // One service per SQLite file: a second one would watch and act beside the first (decision 0052).
  const instance = config.database.kind === 'sqlite' ? holdInstanceLock(config.database.path) : undefined;
  try {
    return await serve(io, config, secrets);
  } finally {
    instance?.release();
  }
}

async function serve(io: CliIo, config: Config, secrets: Secrets): Promise<number> {
  // A stop asked for before the service is up (while it waits for PostgreSQL) ends the start, not only the serving.
  const stopping = new AbortController();
  void io.stopSignal.then(() => {
    stopping.abort();
  });
  let app;
  try {
    app = await createApp(config, secrets, { stopping: stopping.signal });
  } catch (e) {
    if (!(e instanceof DatabaseWaitStopped)) throw e;
    io.out('Stopped before the database accepted connections.');
    return EXIT.ok;
  }
  const server = await listen(app.fetch, {
    host: config.host,
    port: config.port,
    log: app.log,
    lane: app.lane,
    keepAliveSeconds: config.keepAliveSeconds,
  });
  app.startBackground();
  const memory = startIdleMemoryRelease({
    onRelease: ({ ms, before, after }) => {
      app.log.debug(
        {
          ms: Math.round(ms),
          slackBeforeMb: Math.round(before / 2 ** 20),
          slackAfterMb: Math.round(after / 2 ** 20),
        },
        'idle: memory given back',
      );
    },
  });
  app.log.info(
    { url: config.baseUrl, bind: `${config.host}:${String(server.port)}`, database: config.database.kind },
    'listening',
  );
  io.out('');
  io.out(`  Inbox Triage is running at ${config.baseUrl}`);
  io.out(`  Health: ${config.baseUrl}/healthz   Ready: ${config.baseUrl}/readyz`);
  io.out(`  Data: ${config.database.kind === 'sqlite' ? config.database.path : 'PostgreSQL (DATABASE_URL)'}`);
  if (await app.services.accounts.needsSetup()) {
    const token = await app.services.accounts.issueSetupLink();
    io.out('  First run: create the owner account within the next hour at');
    io.out(`  ${config.baseUrl}/setup?token=${token}`);
    io.out('  (restart the service for a new link if this one expires)');
  } else {
    io.out(`  Sign in: ${config.baseUrl}/signin`);
  }
  for (const warning of deploymentWarnings(config)) {
    app.log.warn({}, warning);
    io.out(`  Warning: ${warning}`);
  }
  io.out('');

  const signal = await io.stopSignal;
  app.log.info({ signal }, 'shutting down: draining in-flight requests');
  memory.stop();
  await server.close(config.shutdownTimeoutMs);
  await app.close();
  app.log.info({}, 'stopped');
  return EXIT.ok;
}
