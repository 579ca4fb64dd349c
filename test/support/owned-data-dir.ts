import { createApp } from '../../src/app.ts';
import { readConfiguration } from '../../src/config/index.ts';
import { silentLogger } from '../../src/lib/logger.ts';
import { tempDir } from './temp-dir.ts';
import { setUpOwner } from './web-client.ts';

/** A new DATA_DIR whose SQLite database has its owner (owner@example.test), for commands and services run on it. */
export async function ownedDataDir(prefix: string): Promise<string> {
  const dataDir = tempDir(prefix);
  const { config, secrets } = readConfiguration({ DATA_DIR: dataDir }, '/');
  const app = await createApp(config, secrets, { log: silentLogger });
  await setUpOwner(app, 'owner@example.test');
  await app.close();
  return dataDir;
}
