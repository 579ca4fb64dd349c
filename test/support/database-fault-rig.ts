import pg from 'pg';
import type { App } from '../../src/app.ts';
import { freshPgDatabase, startDovecot, type Dovecot } from '../rig/index.ts';
import { recordingLogger } from './recording-logger.ts';
import { createTestApp } from './test-app.ts';
import { agentOn, type toolCaller } from './tool-caller.ts';

/**
 * For tests of what the service does when its own database refuses: an app on a fresh PostgreSQL database (its log
 * recorded), an agent's tool caller, a direct connection to the database (to add triggers that refuse), and a Dovecot
 * with the given users. `seed` runs after Dovecot starts and before the app does.
 */
export async function databaseFaultRig(o: {
  users: Record<string, string>;
  seed?: (dovecot: Dovecot) => Promise<unknown>;
}): Promise<{
  app: App;
  call: ReturnType<typeof toolCaller>;
  db: pg.Client;
  dovecot: Dovecot;
  lines: string[];
  close: () => Promise<void>;
}> {
  const dovecot = await startDovecot({ users: o.users });
  await o.seed?.(dovecot);
  const url = await freshPgDatabase();
  const { log, lines } = recordingLogger();
  const app = await createTestApp({ pgUrl: url, overrides: { log } });
  const { call } = await agentOn(app);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  return {
    app,
    call,
    db,
    dovecot,
    lines,
    close: async () => {
      await db.end();
      await app.close();
      await dovecot.stop();
    },
  };
}
